// Package safetext makes text that came from outside (file names, values
// read from files) safe to print in a message: control characters and
// the Unicode controls that reorder text on a terminal (U+202E and the
// like) are written as escapes, so that a file name cannot hide or
// rearrange what a message says. Newlines and tabs, which messages use
// themselves, are kept.
package safetext

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every unsafe character escaped (\x00, \u202e);
// invalid UTF-8 bytes become \xHH.
func Escape(s string) string {
	if safe(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func safe(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			return false
		}
		i += n
	}
	return true
}

func unsafeRune(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	// Cf covers the bidirectional overrides and isolates (U+202A..U+202E,
	// U+2066..U+2069), the marks U+200E/U+200F and zero-width characters.
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// Writer escapes what is written through it (each Write is escaped on its
// own: a message is one Write).
type Writer struct{ W io.Writer }

func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, Escape(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
