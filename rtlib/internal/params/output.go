package params

import (
	"fmt"
	"io"
	"strings"
)

// OutputMode says where the standard output (or error) of the user program
// goes, per processor (seed 000 §8.2).
type OutputMode int

const (
	// OutProc0: processor 0's output goes to the stream (or to the file
	// Path); the other processors' output is discarded. The default, as in
	// Lib-DVM.
	OutProc0 OutputMode = iota
	// OutEach: every processor writes its own file, Path with %d replaced
	// by the processor number.
	OutEach
	// OutCommon: every processor writes to the stream (or to the one file
	// Path); each Write is whole, writes of different processors do not
	// interleave within one call.
	OutCommon
)

// Output is where one of the user program's standard streams goes.
type Output struct {
	Mode OutputMode
	// Path is the file (OutProc0, OutCommon; "" for the stream itself) or
	// the file name pattern with one %d (OutEach).
	Path string
	// W is the stream; nil for the process's own (os.Stdout, os.Stderr).
	W io.Writer
}

func (o Output) String() string {
	switch o.Mode {
	case OutEach:
		return "each:" + o.Path
	case OutCommon:
		if o.Path == "" {
			return "common"
		}
		return "common:" + o.Path
	}
	if o.Path == "" {
		return "proc0"
	}
	return "proc0:" + o.Path
}

// ParseOutput parses "proc0[:PATH]", "each[:PATTERN]" or "common[:PATH]".
// def is the file pattern of "each" without one.
func ParseOutput(s, def string) (Output, error) {
	mode, path, _ := strings.Cut(s, ":")
	var o Output
	switch strings.ToLower(strings.TrimSpace(mode)) {
	case "", "proc0":
		o.Mode = OutProc0
	case "each":
		o.Mode = OutEach
		if path == "" {
			path = def
		}
	case "common":
		o.Mode = OutCommon
	default:
		return o, fmt.Errorf("want proc0[:FILE], each[:PATTERN] or common[:FILE]")
	}
	o.Path = path
	if o.Mode == OutEach && strings.Count(path, "%d") != 1 {
		return o, fmt.Errorf("each:%s: the file name pattern needs one %%d for the processor number", path)
	}
	return o, nil
}
