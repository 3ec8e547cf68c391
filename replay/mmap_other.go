//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package replay

import "os"

// mapFile does not map files here: they are read through ReadAt.
func mapFile(f *os.File, size int64) ([]byte, func()) { return nil, func() {} }
