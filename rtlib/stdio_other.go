//go:build !unix

package rtlib

import "os"

// Without dup the program's standard output is written as os.Stdout
// writes it.
func stdioDup(int) *os.File { return nil }

func isEPIPE(error) bool { return false }

func brokenPipe(*os.File, []byte) {}
