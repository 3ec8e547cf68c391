//go:build !amd64 && !arm64

package rtlib

import "runtime"

// getg identifies the calling goroutine: on the architectures without an
// assembly getg (amd64 and arm64 have one), by its id parsed from the
// first line of its stack trace ("goroutine 123 [running]:"), which is
// slow.
func getg() uintptr {
	var b [64]byte
	n := runtime.Stack(b[:], false)
	s := b[:n]
	const prefix = "goroutine "
	if len(s) < len(prefix) {
		return 0
	}
	s = s[len(prefix):]
	var id uintptr
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uintptr(c-'0')
	}
	return id
}
