//go:build linux || darwin || freebsd || netbsd || openbsd

package replay

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only: the replay then reads
// a trace without a system call or a copy per block (a 2 GB trace was
// read twice through pread: once to index it, once to decode it).
func mapFile(f *os.File, size int64) ([]byte, func()) {
	if size <= 0 || size != int64(int(size)) {
		return nil, func() {}
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, func() {}
	}
	return b, func() { syscall.Munmap(b) }
}
