package main

import (
	"syscall"
	"unsafe"
)

// childAttr makes the kernel send the program SIGTERM when svmc dies.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

// terminalGroup reports whether svmc runs in the foreground process group
// of the terminal of its standard input, output or error: there Ctrl-C
// sends SIGINT to the whole group, the program included. Anywhere else (a
// script, an editor, a CI job, kill -INT) a SIGINT reaches svmc alone.
func terminalGroup() bool {
	pgrp := syscall.Getpgrp()
	for fd := range 3 {
		var fg int32
		_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&fg)))
		if e == 0 {
			return int(fg) == pgrp
		}
	}
	return false
}
