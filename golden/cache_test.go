package golden

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The golden programs are built and run by go build in a subprocess, with
// the runtime's source from this module: go test cannot see that they
// depend on it, and would reuse a cached result after the runtime changed.
// Reading the runtime's files makes them inputs of the test, so any change
// to them runs it again (go test notes the files a test opens while it runs:
// not in init, so every test that runs programs calls this first).
func runtimeInputs() {
	for _, dir := range []string{"../rtlib", "../trace", "../request", "../progdb", "../internal"} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				if f, err := os.Open(path); err == nil {
					f.Close()
				}
			}
			return nil
		})
	}
}
