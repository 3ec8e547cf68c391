package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/svmc/svmc/vet"
)

// asVetTool runs svmc as go vet's tool when go vet calls it so: with
// -V=full (its version, for the build cache), -flags (its flags), or
// flags and the path of the configuration file go vet writes (vet.cfg).
// It does not return then.
func asVetTool(args []string) {
	if len(args) >= 2 && (args[1] == "-V=full" || args[1] == "-flags" || strings.HasSuffix(args[len(args)-1], "vet.cfg")) {
		unitchecker.Main(vet.Analyzer)
	}
}

func vetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vet [-C DIR] [-json] [--mpi] [packages]",
		Short: "report svmc's diagnostics of //svm: directives and parallel bodies, as go vet does",
		Long: `vet runs go vet with svmc as its vet tool: for every package with //svm: directives
it reports the directives' errors and the checks of parallel bodies (write conflicts,
loop-carried dependences, shared maps, barriers in a branch on the processor number),
each at file:line:col, and exits 1 if it reported anything. -json writes go vet's JSON;
--mpi adds the checks of svmc run --mpi (variables a pdo writes that stay on each rank).

The same analyzer runs in go vet and gopls:

	go vet -vettool=$(which svmc-vet) ./...    (go install github.com/svmc/svmc/cmd/svmc-vet)`,
		Example: `  svmc vet ./...
  svmc vet --mpi ./...       before running on several machines
  svmc vet -json . > vet.json`,
		// go vet's own flags (-json, -tags, ...) are passed to it as they
		// are written, with one dash.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			vargs := []string{"vet", "-vettool=" + self}
			pkgs := 0
			for i := 0; i < len(args); i++ {
				a := args[i]
				switch {
				case (a == "-C" || a == "--chdir") && i+1 < len(args) || strings.HasPrefix(a, "-C=") || strings.HasPrefix(a, "--chdir="):
					// go vet takes -C only first, before -vettool: the
					// change of directory is made here, where the
					// module is set up from.
					dir, ok := strings.CutPrefix(strings.TrimPrefix(a, "--chdir="), "-C=")
					if !ok && !strings.HasPrefix(a, "--chdir=") {
						i++
						dir = args[i]
					}
					if err := os.Chdir(dir); err != nil {
						return fmt.Errorf("-C %s: %v", dir, errors.Unwrap(err))
					}
					continue
				case a == "-h" || a == "--help" || a == "-help":
					return cmd.Help()
				case a == "--json":
					a = "-json"
				case a == "--mpi" || a == "-mpi":
					a = "-svmc.mpi" // the analyzer's flag, as go vet passes it on
				case !strings.HasPrefix(a, "-"):
					pkgs++
				}
				vargs = append(vargs, a)
			}
			if pkgs == 0 {
				vargs = append(vargs, ".")
			}
			// A module that uses the runtime's API without requiring
			// svmc (svmc run gives it the embedded runtime) gets it here
			// too, as svmc run sets it up; outside a module go vet says
			// what it says.
			work, err := newWorkDir("svmc-vet-", false)
			if err != nil {
				return err
			}
			defer os.RemoveAll(work)
			var env []string
			if setup, err := moduleSetup(".", work); err == nil {
				vargs = append(append(vargs[:2:2], setup.flags...), vargs[2:]...)
				env = setup.env
			}
			g := exec.Command("go", vargs...)
			g.Env = append(os.Environ(), env...)
			g.Stdout, g.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			err = g.Run()
			var xe *exec.ExitError
			if errors.As(err, &xe) {
				return exitError{xe.ExitCode()}
			}
			if err != nil {
				return fmt.Errorf("running go vet: %v", err)
			}
			return nil
		},
	}
	return cmd
}
