package main

import "syscall"

// childAttr makes the kernel send the program SIGTERM when svmc dies.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
