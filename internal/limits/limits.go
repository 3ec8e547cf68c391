// Package limits reads the files svmc and its runtime take from users with
// a bound on their size: a request file, a parameter file or a program
// information file named by mistake (or malice) as /dev/zero or a huge log
// must end in an error that names it, not in running out of memory.
package limits

import (
	"fmt"
	"io"
	"os"
)

// Sizes of the files read whole; each is far above what svmc writes.
const (
	RequestFile = 16 << 20  // a trace request file, and each file it includes
	ParamFile   = 1 << 20   // a run-time parameter file
	ProgramInfo = 256 << 20 // a program information file (svminfo.json)
)

// ReadFile reads the file at path, of at most max bytes; what says what the
// file should be ("a request file"), for the error.
func ReadFile(path string, max int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, max, path, what)
}

// ReadAll reads r to its end, at most max bytes; name names r in the error.
func ReadAll(r io.Reader, max int64, name, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: larger than %s, which is more than %s can be", name, size(max), what)
	}
	return data, nil
}

func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
