//go:build unix

package main

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// private checks that a file or directory is the user's own, no symbolic
// link, and writable by nobody else.
func private(fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("a symbolic link")
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file or directory")
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("owned by user %d, not by you (%d)", st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("writable by others (mode %v)", fi.Mode().Perm())
	}
	return nil
}
