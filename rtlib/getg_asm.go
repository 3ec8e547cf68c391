//go:build amd64 || arm64

package rtlib

// getg identifies the calling goroutine in a few instructions: the address
// of its runtime descriptor, unique among live goroutines (a descriptor is
// reused only after its goroutine ended).
func getg() uintptr
