//go:build !linux

package main

// onMainThread answers as on Linux where no thread id tells it.
func onMainThread() bool { return true }
