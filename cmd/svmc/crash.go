package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// crashed turns a panic of svmc itself into a message a user can act on:
// what failed and in which function of svmc, with the Go stack in a file
// to attach to a report, never on the terminal. Deferred first in main.
func crashed() {
	v := recover()
	if v == nil {
		return
	}
	os.Exit(crashReport(os.Stderr, v, debug.Stack()))
}

// crashReport writes the message of a panic v with its stack and returns
// svmc's exit status for it.
func crashReport(w io.Writer, v any, stack []byte) int {
	where := ""
	// The stack's first frame of svmc's code after the panic is where it
	// failed (go/types' own assertions are called from there).
	if _, after, ok := bytes.Cut(stack, []byte("\npanic(")); ok {
		for _, line := range bytes.Split(after, []byte("\n")) {
			if bytes.HasPrefix(line, []byte("github.com/svmc/svmc/")) {
				where = string(line)
				if i := bytes.LastIndexByte(line, '('); i > 0 {
					where = string(line[:i])
				}
				break
			}
		}
	}
	file := "(its stack could not be saved)"
	if f, err := os.CreateTemp("", "svmc-crash-*.txt"); err == nil {
		fmt.Fprintf(f, "svmc %s: panic: %v\n\n%s", version, v, stack)
		f.Close()
		file = f.Name()
	}
	msg := fmt.Sprintf("svmc internal error: %v", v)
	if where != "" {
		msg += " (in " + where + ")"
	}
	fmt.Fprintf(w, "%s\nthis is a bug in svmc, not in your program; please report it with the command you ran and %s\n", msg, file)
	return 2
}
