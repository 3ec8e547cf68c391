package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// goStyleFlags rewrites the single-dash long flags of args (-tags debug,
// -race, -out=FILE), as the go command takes them, to the two dashes of
// svmc's flag parser, which read -tags as the shorthands -t -a -g -s and
// -out FILE as -o ut and an argument FILE. Only a word that names a long
// flag of the command is rewritten, and nothing after "--" (the program's
// arguments, go test's flags).
func goStyleFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == root {
		return args
	}
	var out []string
	for i, a := range args {
		if a == "--" {
			if out == nil {
				return args
			}
			return append(out, args[i:]...)
		}
		if name, ok := singleDashLong(a); ok && cmd.Flags().Lookup(name) != nil {
			if out == nil {
				out = append([]string(nil), args[:i]...)
			}
			a = "-" + a
		}
		if out != nil {
			out = append(out, a)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// singleDashLong is the flag name of a word "-name" or "-name=value" whose
// name has more than one letter.
func singleDashLong(a string) (string, bool) {
	if len(a) < 3 || a[0] != '-' || a[1] == '-' {
		return "", false
	}
	name, _, _ := strings.Cut(a[1:], "=")
	return name, len(name) > 1
}
