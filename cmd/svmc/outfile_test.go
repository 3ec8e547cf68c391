package main

import (
	"io"
	"path/filepath"
	"testing"
)

// TestWriteResultNamesTheFile: an output that cannot be written is named
// as the user named it, not by the temporary name it is written under
// first ("open /nope/.r.txt.772196927.tmp: no such file or directory").
func TestWriteResultNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodir", "r.txt")
	err := writeResult("-o", path, nil, func(io.Writer) error { return nil })
	if err == nil || err.Error() != "-o "+path+": cannot write it: no such file or directory" {
		t.Errorf("writeResult: %v", err)
	}
}
