//go:build !linux

package main

import "syscall"

// childAttr: only Linux has a parent-death signal.
func childAttr() *syscall.SysProcAttr { return nil }

// terminalGroup: elsewhere svmc assumes a terminal's Ctrl-C, which
// reaches the program through the process group.
func terminalGroup() bool { return true }
