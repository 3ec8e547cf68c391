//go:build linux

package main

import "syscall"

// onMainThread reports whether the calling goroutine runs on the process's
// first thread, whose thread id is the process id.
func onMainThread() bool { return syscall.Gettid() == syscall.Getpid() }
