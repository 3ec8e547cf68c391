package rtlib_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	rt "github.com/svmc/svmc/rtlib"
	"github.com/svmc/svmc/trace"
)

func init() {
	// An endless loop of PDOs whose bodies open and close a user region per
	// iteration; the leader prints the number of each finished PDO.
	bodies["sigloop"] = func(p *rt.Proc) {
		for k := 0; ; k++ {
			p.PDO(1, 1, rt.DefaultSchedule(), space(0, 9), func(q *rt.Proc, it *rt.Iter) {
				for it.Next() {
					q.RegionStart(1, 2, trace.RegionUser)
					q.RegionStop(1, 2, trace.RegionUser)
				}
			})
			fmt.Fprintf(p.Stdout(), "%d\n", k)
		}
	}
	// A program that handles SIGINT itself (signal.NotifyContext, as the
	// generated code calls it): it loops over PDOs until the signal, then
	// says so and returns; after that it stops handling it.
	bodies["siggraceful"] = func(p *rt.Proc) {
		ctx, stop := rt.SignalNotifyContext(context.Background(), os.Interrupt)
		k := 0
		for ; ctx.Err() == nil; k++ {
			p.PDO(1, 1, rt.DefaultSchedule(), space(0, 9), func(q *rt.Proc, it *rt.Iter) {
				for it.Next() {
				}
			})
			if k == 50 {
				fmt.Fprintln(p.Stdout(), "ready")
			}
		}
		stop()
		fmt.Fprintln(p.Stdout(), "graceful")
	}
	// A PDO whose body never reaches a safe point.
	bodies["sigstuck"] = func(p *rt.Proc) {
		p.PDO(1, 1, rt.DefaultSchedule(), space(0, 1), func(q *rt.Proc, it *rt.Iter) {
			q.RegionStart(1, 2, trace.RegionUser)
			if q.ID() == 0 {
				fmt.Fprintln(q.Stdout(), "ready")
			}
			for {
				time.Sleep(time.Millisecond)
			}
		})
	}
}

// startProg starts body name in a subprocess and returns it with its
// standard output.
func startProg(t *testing.T, name string, env ...string) (*exec.Cmd, *bufio.Reader, *bytes.Buffer) {
	t.Helper()
	return startCmd(t, exec.Command(os.Args[0], "-test.run=^$"), name, env...)
}

// startCmd is startProg with the command that runs the test binary.
func startCmd(t *testing.T, cmd *exec.Cmd, name string, env ...string) (*exec.Cmd, *bufio.Reader, *bytes.Buffer) {
	t.Helper()
	cmd.Env = append(os.Environ(), "SVMC_TEST_PROG="+name, "GORACE=atexit_sleep_ms=0")
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewReader(out), &stderr
}

func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the program did not end")
	}
	return -1
}

// readAllRecords reads a trace and returns its records, trace-end included.
func readAllRecords(t *testing.T, path string) []*trace.Record {
	t.Helper()
	return readTraceRecords(t, path, false)
}

// readTraceRecords is readAllRecords; with cut, the file may end inside a
// record (a SIGKILL during a write): the records before it are returned,
// as the tools analyse such a trace up to the damage.
func readTraceRecords(t *testing.T, path string, cut bool) []*trace.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := trace.NewReader(f)
	if err != nil {
		t.Fatalf("trace unreadable: %v", err)
	}
	var recs []*trace.Record
	for r, err := range rd.All() {
		if err != nil {
			var ce *trace.CorruptError
			if fi, serr := f.Stat(); cut && errors.As(err, &ce) && serr == nil && ce.Offset == fi.Size() && strings.HasPrefix(ce.Msg, "unexpected end of input") {
				t.Logf("the trace ends inside a record, after %d records (the kill interrupted a write): %v", len(recs), err)
				break
			}
			t.Fatalf("trace unreadable after %d records: %v", len(recs), err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestSignalHandledByProgram: a program that handles SIGINT itself ends
// as it decides (here: it says "graceful" and returns, status 0), with a
// complete trace ending normally; before, the runtime stopped it as
// "interrupted (SIGINT)", status 130, and the program's shutdown never ran.
func TestSignalHandledByProgram(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graceful.sddf")
	cmd, out, stderr := startProg(t, "siggraceful", "SVMC_NPROCS=2", "SVMC_TRACE="+path, "SVMC_STAGE=1")
	if line, err := out.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("%q %v; stderr %q", line, err, stderr.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	rest, _ := io.ReadAll(out)
	if code := exitCode(t, cmd); code != 0 || string(rest) != "graceful\n" || stderr.Len() != 0 {
		t.Fatalf("exit status %d, stdout %q, stderr %q; want 0, graceful", code, rest, stderr.String())
	}
	recs := readAllRecords(t, path)
	if end := recs[len(recs)-1]; end.Desc.Name != "trace-end" || end.Int("status") != 0 {
		t.Errorf("last record %v", end)
	}
}

// TestInterruptMidLoop: SIGINT while the program loops over PDOs stops the
// processors at their next safe point; the trace is complete up to there
// and ends with trace-end; the exit status is 130.
func TestInterruptMidLoop(t *testing.T) {
	for _, f := range []string{"binary", "ascii"} {
		path := filepath.Join(t.TempDir(), "sig.sddf")
		cmd, out, stderr := startProg(t, "sigloop", "SVMC_NPROCS=2", "SVMC_TRACE="+path, "SVMC_STAGE=1",
			"SVMC_FORMAT="+f, "SVMC_TRACEBUF=2k")
		var done int
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				t.Fatalf("%v; stderr %q", err, stderr.String())
			}
			if done, _ = strconv.Atoi(line[:len(line)-1]); done >= 50 {
				break
			}
		}
		cmd.Process.Signal(syscall.SIGINT)
		go io.Copy(io.Discard, out)
		if code := exitCode(t, cmd); code != 130 {
			t.Errorf("%s: exit status %d, want 130", f, code)
		}
		if want := "svmc: interrupted (SIGINT): trace written to " + path + "\n"; stderr.String() != want {
			t.Errorf("%s: stderr %q, want %q", f, stderr.String(), want)
		}
		recs := readAllRecords(t, path)
		end := recs[len(recs)-1]
		if end.Desc.Name != "trace-end" || end.Int("status") != trace.EndInterrupt || end.String("message") != "interrupted (SIGINT)" {
			t.Fatalf("%s: last record %v", f, end)
		}
		// Every processor's records nest properly up to where it stopped,
		// and the PDOs the leader reported finished are all there.
		pdos := map[int]int{}
		stacks := map[int][]int{}
		for _, r := range recs[:len(recs)-1] {
			node, dir := r.Node(), r.Int("directive number")
			switch r.Desc.Name {
			case "trace-region-start":
				stacks[node] = append(stacks[node], dir)
			case "trace-region-stop":
				s := stacks[node]
				if len(s) == 0 || s[len(s)-1] != dir {
					t.Fatalf("%s: node %d: stop of %d with %v open", f, node, dir, s)
				}
				stacks[node] = s[:len(s)-1]
				if dir == 1 {
					pdos[node]++
				}
			}
		}
		if pdos[0] < done+1 || pdos[1] < done+1 {
			t.Errorf("%s: %v PDOs closed per node, the leader reported %d", f, pdos, done+1)
		}
	}
}

// TestHangup: SIGHUP (a closed terminal or ssh session) ends the run as
// SIGTERM does, with a complete trace and status 129 (it killed the
// program at once, leaving the trace under its partial name); a program
// started with SIGHUP ignored (nohup) goes on through it.
func TestHangup(t *testing.T) {
	if signal.Ignored(syscall.SIGHUP) {
		t.Skip("SIGHUP is ignored where this test runs (nohup), and so in the programs it starts: it cannot be sent to them")
	}
	waitFor := func(out *bufio.Reader, stderr *bytes.Buffer, n int) {
		t.Helper()
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				t.Fatalf("%v; stderr %q", err, stderr.String())
			}
			if k, _ := strconv.Atoi(line[:len(line)-1]); k >= n {
				return
			}
		}
	}
	path := filepath.Join(t.TempDir(), "hup.sddf")
	cmd, out, stderr := startProg(t, "sigloop", "SVMC_NPROCS=2", "SVMC_TRACE="+path, "SVMC_STAGE=1")
	waitFor(out, stderr, 20)
	cmd.Process.Signal(syscall.SIGHUP)
	go io.Copy(io.Discard, out)
	if code := exitCode(t, cmd); code != 129 {
		t.Errorf("exit status %d, want 129; stderr %q", code, stderr.String())
	}
	if want := "svmc: interrupted (SIGHUP): trace written to " + path + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	recs := readAllRecords(t, path)
	if end := recs[len(recs)-1]; end.Desc.Name != "trace-end" || end.Int("status") != trace.EndTerminate || end.String("message") != "interrupted (SIGHUP)" {
		t.Errorf("last record %v", end)
	}

	// nohup: ignored when the program starts (the shell's trap sets it
	// ignored, which exec keeps), it stays ignored.
	nohup := exec.Command("sh", "-c", `trap "" HUP; exec "$0" -test.run='^$'`, os.Args[0])
	cmd, out, stderr = startCmd(t, nohup, "sigloop", "SVMC_NPROCS=2", "SVMC_TRACE="+filepath.Join(t.TempDir(), "nohup.sddf"), "SVMC_STAGE=1")
	waitFor(out, stderr, 20)
	go io.Copy(io.Discard, out)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	cmd.Process.Signal(syscall.SIGHUP)
	// The lines already in the pipe say nothing of after the signal: the
	// program must still run a while later (a slow machine can only make
	// this pass wrongly, never fail wrongly).
	select {
	case err := <-done:
		t.Fatalf("started with SIGHUP ignored, the program ended on SIGHUP: %v; stderr %q", err, stderr.String())
	case <-time.After(300 * time.Millisecond):
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 143 {
			t.Errorf("started with SIGHUP ignored: %v, want exit status 143 (of the SIGTERM after it); stderr %q", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the program did not end on SIGTERM")
	}
}

// TestTerminateStuck: SIGTERM while every processor is in user code that
// never reaches a safe point: after the bounded wait the trace is written
// with each processor's records so far, trace-end names them, and the exit
// status is 143.
func TestTerminateStuck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stuck.sddf")
	cmd, out, stderr := startProg(t, "sigstuck", "SVMC_NPROCS=2", "SVMC_TRACE="+path, "SVMC_STAGE=1", "SVMC_STOP_WAIT=200ms")
	if line, err := out.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("%q %v; stderr %q", line, err, stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(t, cmd); code != 143 {
		t.Errorf("exit status %d, want 143", code)
	}
	if want := "svmc: interrupted (SIGTERM): trace written to " + path + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	recs := readAllRecords(t, path)
	got := map[int][]string{}
	for _, r := range recs[:len(recs)-1] {
		got[r.Node()] = append(got[r.Node()], fmt.Sprintf("%s(%d)", r.Desc.Name, r.Int("directive number")))
	}
	want := []string{"trace-region-start(0)", "trace-region-start(1)", "trace-region-start(2)"}
	if !reflect.DeepEqual(got[0], want) || !reflect.DeepEqual(got[1], want) {
		t.Errorf("records %v, want %v per node", got, want)
	}
	end := recs[len(recs)-1]
	if _, notStopped := end.IntArray("processors not stopped"); end.Desc.Name != "trace-end" || end.Int("status") != trace.EndTerminate ||
		!reflect.DeepEqual(notStopped, []int{0, 1}) {
		t.Errorf("last record %v", end)
	}
}

// TestTerminateTwice: a second SIGTERM while the run waits for processors
// that never reach a safe point ends the wait: the trace is completed at
// once and the exit status is 143. Before, the second signal killed the
// program with nothing of the trace written. Two signals within a moment
// (a process-group kill through svmc run) count as one.
func TestTerminateTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "twice.sddf")
	cmd, out, stderr := startProg(t, "sigstuck", "SVMC_NPROCS=2", "SVMC_TRACE="+path, "SVMC_STAGE=1", "SVMC_STOP_WAIT=1h")
	if line, err := out.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("%q %v; stderr %q", line, err, stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Process.Signal(syscall.SIGTERM) // the same kill, passed on
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(t, cmd); code != 143 {
		t.Errorf("exit status %d, want 143; stderr %q", code, stderr.String())
	}
	want := "svmc: SIGTERM again: completing the trace without waiting for the processors\n" +
		"svmc: interrupted (SIGTERM): trace written to " + path + "\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	recs := readAllRecords(t, path)
	end := recs[len(recs)-1]
	if _, notStopped := end.IntArray("processors not stopped"); end.Desc.Name != "trace-end" || end.Int("status") != trace.EndTerminate ||
		!reflect.DeepEqual(notStopped, []int{0, 1}) {
		t.Errorf("last record %v", end)
	}
	if len(recs) < 7 {
		t.Errorf("%d records, want the 6 region starts and trace-end", len(recs))
	}
}

// TestKilledKeepsRecords: SIGKILL cannot be caught, so what a killed run
// keeps is what reached the file. The writer writes every buffer handed
// over at once: the loss is bounded by the processors' buffers (two of
// SVMC_TRACEBUF bytes each), not by file buffers in between. Before, 320
// KiB of buffers in front of the file held the whole trace of this run.
func TestKilledKeepsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "killed.sddf")
	cmd, out, stderr := startProg(t, "sigloop", "SVMC_NPROCS=2", "SVMC_TRACE="+path, "SVMC_STAGE=1", "SVMC_TRACEBUF=2k")
	var done int
	for done < 100 {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("%v; stderr %q", err, stderr.String())
		}
		done, _ = strconv.Atoi(line[:len(line)-1])
	}
	cmd.Process.Kill()
	go io.Copy(io.Discard, out)
	exitCode(t, cmd)
	// The trace is complete when it has its name; until then it is partial.
	path = trace.PartialName(path, cmd.Process.Pid)
	recs := readTraceRecords(t, path, true)
	pdos := map[int]int{}
	bytesPerPDO := 0
	for _, r := range recs {
		if r.Desc.Name == "trace-region-stop" && r.Int("directive number") == 1 {
			pdos[r.Node()]++
		}
	}
	if fi, err := os.Stat(path); err == nil && pdos[0] > 0 {
		bytesPerPDO = int(fi.Size()) / (pdos[0] + pdos[1])
	}
	// Four buffers of 2 KiB of one processor hold this many PDOs at most:
	// the one it fills, the writer's queue (room for as many buffers as
	// there are processors, two here, both maybe this one's) and the one
	// the writer was writing when the kill came (the trace then ends
	// inside a record; a CI run under load lost 12 PDOs of a processor
	// that way, with a bound of two buffers, 7 PDOs).
	if bytesPerPDO == 0 {
		t.Fatalf("no PDO of the %d the leader finished is in the trace (%d records)", done+1, len(recs))
	}
	lost := 4 * 2048 / bytesPerPDO
	for node := 0; node < 2; node++ {
		if pdos[node] < done+1-lost-1 {
			t.Errorf("node %d: %d PDOs in the trace, the leader finished %d; at most %d could be in the buffers", node, pdos[node], done+1, lost)
		}
	}
}

// TestSameTraceTwoRuns: two runs writing the same trace file at once each
// write a partial file of their own and rename it when complete, so the
// file is one whole trace (the later run's) and no partial file is left.
// Before, both wrote the one file and left it unreadable.
func TestSameTraceTwoRuns(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "same.sddf")
	var cmds []*exec.Cmd
	for range 2 {
		cmd, out, stderr := startProg(t, "sigloop", "SVMC_NPROCS=2", "SVMC_TRACE="+path, "SVMC_STAGE=1", "SVMC_TRACEBUF=2k")
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				t.Fatalf("%v; stderr %q", err, stderr.String())
			}
			if n, _ := strconv.Atoi(line[:len(line)-1]); n >= 20 {
				break
			}
		}
		go io.Copy(io.Discard, out)
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		cmd.Process.Signal(syscall.SIGINT)
		if code := exitCode(t, cmd); code != 130 {
			t.Errorf("exit status %d, want 130", code)
		}
	}
	recs := readAllRecords(t, path)
	if end := recs[len(recs)-1]; end.Desc.Name != "trace-end" {
		t.Errorf("last record %v, want trace-end", end)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 1 {
		t.Errorf("files %v, want the trace alone", files)
	}
}
