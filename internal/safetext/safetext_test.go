package safetext

import (
	"bytes"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"main.go:3:1: unknown template T\n\tat x": "main.go:3:1: unknown template T\n\tat x",
		"a\x00b.sddf":          `a\x00b.sddf`,
		"evil\u202Egnp.sddf":   `evil\u202egnp.sddf`,
		"\x1b[31mred":          `\x1b[31mred`,
		"bad\xffutf8":          `bad\xffutf8`,
		"Привет, 世界":           "Привет, 世界",
		"carriage\rreturn":     `carriage\x0dreturn`,
		"zero\u200bwidth":      `zero\u200bwidth`,
		"isolate\u2066x\u2069": `isolate\u2066x\u2069`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	if n, err := (Writer{&b}).Write([]byte("x\x00\n")); n != 3 || err != nil || b.String() != "x\\x00\n" {
		t.Errorf("Writer: %d %v %q", n, err, b.String())
	}
}
