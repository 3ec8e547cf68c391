//go:build !linux

package main

import "syscall"

// childAttr: only Linux has a parent-death signal.
func childAttr() *syscall.SysProcAttr { return nil }
