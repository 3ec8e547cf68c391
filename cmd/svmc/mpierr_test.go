package main

import (
	"strings"
	"testing"
)

// TestRankErrors: the ranks' identical reports of one error come out once,
// the other ranks' interruptions and mpirun's boxes that only say a rank
// failed are left out after it, OpenMPI's lines about an error its
// non-blocking collective returned are left out, and everything else
// passes as it came, whatever the pieces the lines arrive in.
func TestRankErrors(t *testing.T) {
	rule := strings.Repeat("-", 74)
	in := strings.Join([]string{
		"main.go:9:3: warning: a is private to each rank",
		"svmc: processor 0 panicked: index out of range [12] with length 10",
		"\tat main.go:12",
		"svmc: processor 0 panicked: index out of range [12] with length 10",
		"\tat main.go:12",
		"svmc: interrupted (SIGTERM)",
		"svmc: rank 2 interrupted (SIGTERM): mpirun stops every rank of the job when one ends with an error, or when the job is stopped; another rank's message above says why",
		"program output on stderr",
		"MPI Error in NBC subrequest 0x1691fcc0 : 15",
		"NBC_Progress: an error 15 was found during schedule 0x7fded8000e90 at row-offset 0 - aborting the schedule",
		rule,
		"Primary job  terminated normally, but 1 process returned",
		"a non-zero exit code. Per user-direction, the job has been aborted.",
		rule,
		rule,
		"mpirun noticed that process rank 1 with PID 7 on node x exited on signal 9 (Killed).",
		rule,
		rule,
		"mpirun detected that one or more processes exited with non-zero status, thus causing",
		"the job to be terminated. The first process to do so was:",
		"",
		"  Process name: [[25225,1],2]",
		"  Exit code:    2",
		rule,
		"svmc: processor 0 panicked: index out of range [12] with length 10",
		"\tat main.go:12",
		"svmc: processor 1 panicked: another",
		"\tat main.go:20",
	}, "\n") + "\n"
	want := strings.Join([]string{
		"main.go:9:3: warning: a is private to each rank",
		"svmc: processor 0 panicked: index out of range [12] with length 10",
		"\tat main.go:12",
		"program output on stderr",
		rule,
		"mpirun noticed that process rank 1 with PID 7 on node x exited on signal 9 (Killed).",
		rule,
		"svmc: processor 1 panicked: another",
		"\tat main.go:20",
	}, "\n") + "\n"
	for _, piece := range []int{1, 7, 64, len(in)} {
		var out strings.Builder
		w := newRankErrors(&out)
		for s := in; len(s) > 0; {
			n := min(piece, len(s))
			w.Write([]byte(s[:n]))
			s = s[n:]
		}
		w.Flush()
		if out.String() != want {
			t.Errorf("in pieces of %d:\n%s\nwant\n%s", piece, out.String(), want)
		}
	}
	// Without an error of svmc's, mpirun's boxes are the only account.
	var out strings.Builder
	w := newRankErrors(&out)
	box := rule + "\nmpirun detected that one or more processes exited with non-zero status, thus causing\n" + rule + "\n"
	w.Write([]byte(box))
	w.Flush()
	if out.String() != box {
		t.Errorf("a box alone:\n%s\nwant\n%s", out.String(), box)
	}
}
