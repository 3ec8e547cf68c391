package limits

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFile: a file within the limit is read whole; /dev/zero and a
// file one byte over the limit end in an error naming the file, after
// reading at most limit+1 bytes.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.req")
	os.WriteFile(ok, []byte(strings.Repeat("x", 1024)), 0o644)
	if data, err := ReadFile(ok, 1024, "a request file"); err != nil || len(data) != 1024 {
		t.Errorf("within the limit: %d bytes, %v", len(data), err)
	}
	if _, err := ReadFile(ok, 1023, "a request file"); err == nil || !strings.Contains(err.Error(), "ok.req: larger than 1023 bytes, which is more than a request file can be") {
		t.Errorf("one byte over: %v", err)
	}
	if _, err := ReadFile("/dev/zero", RequestFile, "a request file"); err == nil || !strings.Contains(err.Error(), "/dev/zero: larger than 16 MiB") {
		t.Errorf("/dev/zero: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10, "x"); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
