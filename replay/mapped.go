package replay

import (
	"io"
	"os"
)

// Bytes is a trace held in memory: a ReaderAt whose bytes the replay reads
// where they lie (a trace file is mapped into memory where the system
// allows it, see mapFile).
type Bytes []byte

// ReadAt implements io.ReaderAt.
func (b Bytes) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// mapped returns the first size bytes of ra when they can be read where
// they lie (Bytes, or a file mapFile maps), and what releases them; nil
// otherwise (the input is then read through ReadAt).
func mapped(ra io.ReaderAt, size int64) ([]byte, func()) {
	switch x := ra.(type) {
	case Bytes:
		if int64(len(x)) >= size {
			return x[:size], func() {}
		}
	case *os.File:
		return mapFile(x, size)
	}
	return nil, func() {}
}
