package rtlib

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/svmc/svmc/rtlib/internal/params"
)

// A program svmc instrumented may start itself again (exec.Command of
// os.Args[0], as daemons do and as Go's tests of a crash or an exit do) or
// another instrumented program. The child inherits the run's parameters
// through its environment, so it wrote the parent's trace and files, and
// the one that ended last overwrote the other's without a word (x626).
// Each run names the files it writes in its environment (runFilesVar),
// with its process id; a run that finds it would write one of its
// parent's files writes that one under a name of its own, FILE.child-PID
// (svmc run lists the traces). A child given files of its own
// (SVMC_TRACE=other.sddf in its environment) keeps their names.
const runFilesVar = "SVMC_PARENT_RUN"

// parentRun is what runFilesVar holds.
type parentRun struct {
	PID   int      `json:"pid"`
	Files []string `json:"files"` // absolute
}

// startedBy is the process id of the instrumented process whose files
// this run would have written, 0 if none; set by paramsFromEnv.
var startedBy int

// outputFiles are the files the run writes.
func outputFiles(v *params.Values) []*string {
	fs := []*string{&v.Trace, &v.StatFile, &v.CPUProfile, &v.GoTrace, &v.Stdout.Path, &v.Stderr.Path}
	if v.Info.Has("file") {
		fs = append(fs, &v.Info.Path)
	}
	var out []*string
	for _, f := range fs {
		if *f != "" {
			out = append(out, f)
		}
	}
	return out
}

// childFiles renames the run's files if one of them is its parent's, and
// names them for the processes it starts.
func childFiles(v *params.Values) {
	pid := os.Getpid()
	files := outputFiles(v)
	var parent parentRun
	if s, ok := os.LookupEnv(runFilesVar); !ok || json.Unmarshal([]byte(s), &parent) != nil || parent.PID == pid {
		parent = parentRun{}
	}
	mine := parentRun{PID: pid}
	for _, f := range files {
		abs, err := filepath.Abs(*f)
		if err != nil || *f == "-" {
			continue
		}
		if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() {
			continue // a device or pipe (/dev/stdout) is shared as it is
		}
		if slices.Contains(parent.Files, abs) {
			startedBy = parent.PID
			*f += ".child-" + strconv.Itoa(pid)
			abs += ".child-" + strconv.Itoa(pid)
		}
		mine.Files = append(mine.Files, abs)
	}
	if b, err := json.Marshal(mine); err == nil {
		os.Setenv(runFilesVar, string(b))
	}
}

// childNote is the trace attribute that names the parent process.
func childNote() string {
	if startedBy == 0 {
		return ""
	}
	return fmt.Sprintf("process %d, a run of an instrumented program writing these files, started this one", startedBy)
}
