//go:build !linux

package main

import (
	"os"
	"syscall"
)

// childAttr: only Linux has a parent-death signal.
func childAttr() *syscall.SysProcAttr { return nil }

// terminalGroup: elsewhere svmc assumes a terminal's Ctrl-C, which
// reaches the program through the process group.
func terminalGroup() bool { return true }

// signalChildren: elsewhere svmc does not look for go test's test
// binaries; it signals go test itself.
func signalChildren(p *os.Process, sig syscall.Signal) bool { return false }
