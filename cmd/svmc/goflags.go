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
// arguments, go test's flags). For svmc test, go test's own flags written
// among svmc's (svmc test -run TestX -v ./p, svmc test ./p -bench .) move
// after "--" with their values, where go test gets them, and -args with
// the words after it; svmc's flag of the same name (-n, -trace,
// -cpuprofile, -tags) stays svmc's.
func goStyleFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == root {
		return args
	}
	var out, moved []string
	rest := []string(nil) // "--" and what follows it
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = args[i:]
			break
		}
		if cmd.Name() == "test" && (a == "-args" || a == "--args") {
			// go test passes everything after -args to the test binary
			// as it is: it goes after "--" whole, last.
			moved = append(moved, args[i:]...)
			break
		}
		name, long := singleDashLong(a)
		switch {
		case long && cmd.Flags().Lookup(name) != nil:
			a = "-" + a
		case cmd.Name() == "test" && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && goTestFlag(a) != "":
			moved = append(moved, a)
			if goTestFlag(a) == "value" && !strings.Contains(a, "=") && i+1 < len(args) {
				i++
				moved = append(moved, args[i])
			}
			continue
		}
		out = append(out, a)
	}
	if len(moved) > 0 {
		if rest == nil {
			rest = []string{"--"}
		}
		out = append(append(out, rest[0]), append(moved, rest[1:]...)...)
	} else {
		out = append(out, rest...)
	}
	return out
}

// goTestFlag says whether word a (-name, -name=value, -test.name) is one
// of go test's own flags: "bool", "value" (the next word is its value
// unless a has =), or "" for none.
func goTestFlag(a string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimLeft(a, "-"), "test."), "=")
	switch name {
	case "v", "short", "failfast", "benchmem", "json", "fullpath", "x", "c", "cover",
		// the build flags go test takes too (svmc test -race ./...)
		"race", "msan", "asan", "a", "trimpath", "work":
		return "bool"
	case "run", "bench", "benchtime", "count", "cpu", "timeout", "parallel", "skip", "list",
		"shuffle", "fuzz", "fuzztime", "fuzzminimizetime", "blockprofile", "blockprofilerate",
		"memprofile", "memprofilerate", "mutexprofile", "mutexprofilefraction", "outputdir", "vet", "covermode", "coverpkg", "coverprofile",
		"ldflags", "gcflags", "asmflags", "mod", "modfile", "pgo", "exec", "o":
		return "value"
	}
	return ""
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
