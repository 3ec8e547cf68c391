package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// writeResult writes a command's output file: refused when it is one of the
// command's inputs (also through a link: "trace convert a.sddf a.sddf"
// truncated its input before reading it), written under a temporary name in
// the same directory and renamed when complete, so that a failure leaves an
// earlier file as it was. flag names the output in messages.
func writeResult(flag, path string, inputs []string, write func(io.Writer) error) error {
	if path == "-" {
		return write(os.Stdout) // as Go tools do: "-" is standard output
	}
	for _, in := range inputs {
		if in != "" && sameFile(path, in) {
			return fmt.Errorf("%s %s is the input file %s: write the output to another file", flag, path, in)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name is no business of the user's
		}
		return fmt.Errorf("%s %s: cannot write it: %v", flag, path, err)
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

// outDirOK reports a file an analysis command would write (its -o) in a
// directory that is not there, before the command reads its trace (a view
// of 43 million records took 6 s before it found it could not write).
func outDirOK(cmd *cobra.Command) error {
	switch cmd.Name() {
	case "report", "check", "diff", "view":
	default:
		return nil
	}
	f := cmd.Flags().Lookup("out")
	if f == nil || !f.Changed || f.Value.String() == "-" {
		return nil
	}
	path := f.Value.String()
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("-o %s: no directory %s to write it in", path, filepath.Dir(path))
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

// traceInput is a trace to read at random: a file, or with "-" standard
// input, copied to a temporary file first (the readers seek).
type traceInput struct {
	f    *os.File
	size int64
	name string
	tmp  string
}

func openTrace(path string) (*traceInput, error) {
	src, name := os.Stdin, "standard input"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if fi.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s is a directory, not a trace file", path)
		}
		if fi.Mode().IsRegular() {
			return &traceInput{f: f, size: fi.Size(), name: path}, nil
		}
		defer f.Close()
		src, name = f, path // a pipe (/dev/stdin, <(...)): copied like "-"
	}
	f, err := os.CreateTemp("", "svmc-stdin-*.sddf")
	if err != nil {
		return nil, err
	}
	in := &traceInput{f: f, name: name, tmp: f.Name()}
	if in.size, err = io.Copy(f, src); err != nil {
		in.Close()
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return in, nil
}

// outName names an output in messages.
func outName(path string) string {
	if path == "-" {
		return "standard output"
	}
	return path
}

func (in *traceInput) Close() {
	in.f.Close()
	if in.tmp != "" {
		os.Remove(in.tmp)
	}
}

// emit writes an analysis command's output: to the file of its -o flag
// (path, through writeResult: whole or not at all, never over one of
// inputs) or to the command's standard output.
func emit(cmd *cobra.Command, path string, inputs []string, write func(io.Writer) error) error {
	if path == "" {
		return write(cmd.OutOrStdout())
	}
	return writeResult("-o", path, inputs, write)
}
