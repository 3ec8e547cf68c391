package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/svmc/svmc/progdb"
)

// TestCrashReport: a panic in svmc's code, here one go/types raises
// inside a call from svmc, gives one message naming svmc's function and a
// file with the stack; no stack reaches the terminal.
func TestCrashReport(t *testing.T) {
	var stack []byte
	var v any
	func() {
		defer func() { v, stack = recover(), debug.Stack() }()
		var p *progdb.Program
		_ = p.Subprograms // a nil dereference in a frame of svmc's module
	}()
	if v == nil {
		t.Fatal("no panic")
	}
	var out strings.Builder
	if code := crashReport(&out, v, stack); code != 2 {
		t.Errorf("exit status %d", code)
	}
	msg := out.String()
	if !strings.HasPrefix(msg, "svmc internal error: runtime error: invalid memory address") ||
		!strings.Contains(msg, "(in github.com/svmc/svmc/cmd/svmc.TestCrashReport") ||
		strings.Contains(msg, "goroutine ") || strings.Count(msg, "\n") != 2 {
		t.Errorf("message:\n%s", msg)
	}
	i := strings.Index(msg, "/svmc-crash-")
	if i < 0 {
		t.Fatalf("no stack file named: %s", msg)
	}
	name := strings.TrimSpace(msg[strings.LastIndex(msg[:i], " ")+1:])
	b, err := os.ReadFile(name)
	os.Remove(name)
	if err != nil || !strings.Contains(string(b), "goroutine ") || !strings.Contains(string(b), fmt.Sprint(v)) {
		t.Errorf("stack file %s: %v\n%s", name, err, b)
	}
}
