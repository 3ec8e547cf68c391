package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeResult writes a command's output file: refused when it is one of the
// command's inputs (also through a link: "trace convert a.sddf a.sddf"
// truncated its input before reading it), written under a temporary name in
// the same directory and renamed when complete, so that a failure leaves an
// earlier file as it was. flag names the output in messages.
func writeResult(flag, path string, inputs []string, write func(io.Writer) error) error {
	for _, in := range inputs {
		if in != "" && sameFile(path, in) {
			return fmt.Errorf("%s %s is the input file %s: write the output to another file", flag, path, in)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	// CreateTemp makes the file private; an output is as readable as any.
	os.Chmod(f.Name(), 0o644)
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// sameFile reports whether a and b name one existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
