package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// flagValues are the values shells complete for flags with a fixed set
// (svmc completion bash|zsh|fish writes the script).
var flagValues = map[string][]string{
	"run/format":    {"binary", "ascii"},
	"run/stage":     {"0", "1", "2", "3", "4", "5", "6"},
	"run/stdout":    {"proc0", "each:out%d.txt", "common"},
	"run/stderr":    {"proc0", "each:err%d.txt", "common"},
	"run/info":      {"stderr", "stdout", "off", "file:"},
	"report/format": {"text", "json", "html"},
	"export/format": {"chrome", "otf2", "pprof"},
	"convert/to":    {"ascii", "binary"},
}

// completeValues registers flagValues on cmd's flags.
func completeValues(cmd *cobra.Command) {
	for key, vals := range flagValues {
		name, flag, _ := strings.Cut(key, "/")
		if name != cmd.Name() || cmd.Flags().Lookup(flag) == nil {
			continue
		}
		vals := vals
		cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		})
	}
	for _, c := range cmd.Commands() {
		completeValues(c)
	}
}
