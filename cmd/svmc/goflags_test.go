package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
)

// TestGoStyleFlags: the go command's single-dash long flags reach svmc's
// parser with two dashes (svmc run -tags debug read -tags as the shorthands
// -t -a -g -s and failed; svmc report -out FILE T read -o ut and two
// arguments); one-letter flags, words that name no flag and everything
// after -- stay.
func TestGoStyleFlags(t *testing.T) {
	root := &cobra.Command{Use: "svmc"}
	root.AddCommand(runCmd(), reportCmd(), testCmd())
	for _, c := range []struct{ in, want []string }{
		{[]string{"run", "-tags", "debug", "."}, []string{"run", "--tags", "debug", "."}},
		{[]string{"run", "-nprocs=3", "-race", ".", "--", "-tags", "x"}, []string{"run", "--nprocs=3", "--race", ".", "--", "-tags", "x"}},
		{[]string{"report", "-out", "r.txt", "t.sddf"}, []string{"report", "--out", "r.txt", "t.sddf"}},
		{[]string{"run", "-n", "2", "-n4", "-x", "-verbose", "."}, []string{"run", "-n", "2", "-n4", "-x", "-verbose", "."}},
		{[]string{"test", "-n", "2", "./p", "--", "-v", "-count", "1"}, []string{"test", "-n", "2", "./p", "--", "-v", "-count", "1"}},
		{[]string{"-tags", "x"}, []string{"-tags", "x"}},
	} {
		if diff := cmp.Diff(c.want, goStyleFlags(root, c.in)); diff != "" {
			t.Errorf("goStyleFlags(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}
