package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
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

// signalChildren sends sig to the processes whose parent is p (go test's
// test binaries) and reports whether there was one. svmc test passes a
// signal to them, not to go test: go test does not pass SIGINT on and, once
// interrupted itself, prints none of the output its test binary leaves
// (the message that names the completed trace).
func signalChildren(p *os.Process, sig syscall.Signal) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	found := false
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold blanks and parentheses.
		k := bytes.LastIndexByte(b, ')')
		if k < 0 {
			continue
		}
		f := strings.Fields(string(b[k+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(p.Pid) {
			syscall.Kill(pid, sig)
			found = true
		}
	}
	return found
}
