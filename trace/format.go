package trace

import (
	"fmt"
	"strconv"
	"strings"
)

// Format selects the SDDF encoding of a stream.
type Format int

const (
	ASCII  Format = iota + 1 // SDDFA: text, one packet per line (descriptors span lines)
	Binary                   // SDDFB: little-endian packets, see doc.go
)

func (f Format) String() string {
	switch f {
	case ASCII:
		return "ascii"
	case Binary:
		return "binary"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// ParseFormat accepts "ascii", "sddfa", "a", "binary", "sddfb", "b" (any case).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "ascii", "sddfa", "a", "text":
		return ASCII, nil
	case "binary", "sddfb", "b", "bin":
		return Binary, nil
	}
	return 0, fmt.Errorf("trace: unknown SDDF format %q (want ascii or binary)", s)
}

// Attr is one stream attribute, a key and a value of arbitrary bytes.
type Attr struct {
	Key, Value string
}

// Magic strings and the binary header.
const (
	asciiMagic  = "SDDFA"
	binaryMagic = "SDDFB"
	// binHeaderSize is the size of the whole binary header: magic plus the 14
	// characteristic bytes.
	binHeaderSize = 19
)

// binHeader is the header svmc writes: "SDDFB" then header size 19, byte
// order 1 (little-endian), int, float, double, extra-float and char
// representations 0, then the sizes of char, short, int, long, float, double
// and long double.
var binHeader = [binHeaderSize]byte{'S', 'D', 'D', 'F', 'B',
	binHeaderSize, 1, 0, 0, 0, 0, 0,
	1, 2, 4, 8, 4, 8, 16}

// Limits that keep a corrupt or hostile stream from making the reader
// allocate without bound. Every allocation is further bounded by the bytes
// actually present (binary) or parsed (ASCII).
const (
	// MaxPacket is the largest binary packet body accepted (length field).
	MaxPacket = 1 << 28
	// MaxElems is the largest number of elements of one array value.
	MaxElems = 1 << 26
	// MaxString is the largest string (name, attribute value) accepted.
	MaxString = 1 << 26
	// MaxFields is the largest number of fields of one descriptor.
	MaxFields = 1 << 12
	// MaxDims is the largest number of dimensions of one field.
	MaxDims = 8
	// MaxAttrs is the largest number of attributes in one packet.
	MaxAttrs = 1 << 16
)

// CorruptError reports damaged input. Its text is
//
//	trace: NAME: byte offset N (record "x" #k): what is wrong
//
// where NAME is the file name (or "input"), N the offset in the stream of the
// first byte that could not be decoded (the end of the input when the stream
// is truncated), and the parenthesis names the data record being decoded and
// its 1-based number among the stream's data records (or the descriptor, or
// is left out before the first packet).
type CorruptError struct {
	Name   string // file name, "input" if unknown
	Offset int64  // byte offset of the damage
	Where  string // `record "x" #k`, `descriptor #t "x"`, ... or ""
	Msg    string // what is wrong
}

func (e *CorruptError) Error() string {
	if e.Where == "" {
		return fmt.Sprintf("trace: %s: byte offset %d: %s", e.Name, e.Offset, e.Msg)
	}
	return fmt.Sprintf("trace: %s: byte offset %d (%s): %s", e.Name, e.Offset, e.Where, e.Msg)
}

// appendQuoted appends s as an SDDF ASCII string: in double quotes, with
// the escapes \\ \" \n \r \t, \/ for a '/' that follows '*' (so that no "*/"
// appears inside an attribute block), and \xHH for the other bytes below 0x20
// and 0x7f. Bytes from 0x80 up are copied as they are.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '/' && i > 0 && s[i-1] == '*':
			dst = append(dst, '\\', '/')
		case c < 0x20 || c == 0x7f:
			const hex = "0123456789abcdef"
			dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// PartialName is the name under which process pid writes the trace file
// path until the trace is complete (it is renamed to path then). What a run
// killed by SIGKILL wrote stays under this name; svmc run renames it.
func PartialName(path string, pid int) string {
	return path + "." + strconv.Itoa(pid) + ".partial"
}

// Stream attributes of a run whose messages name files from the directory
// it started in rather than the program information's way, from the main
// package's directory (rtlib's srcpos.go): both directories, absolute.
const (
	AttrProgramDir = "svmc program dir"
	AttrStartDir   = "svmc start dir"
)
