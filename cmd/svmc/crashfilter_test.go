package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Reports of the Go runtime as a crashed instrumented program writes them
// (shortened: the runtime's own goroutines after the crashing one).
const (
	mapWritesReport = `fatal error: concurrent map writes

goroutine 20 [running]:
internal/runtime/maps.fatal({0x62210b?, 0x0?})
	/usr/local/go/src/runtime/panic.go:1181 +0x18
main.main.func1.1(0x28?, 0x3d18613264a8)
	main.go:13 +0xcb
github.com/svmc/svmc/rtlib.(*Proc).callBody(0x3d186131c708, 0x270ff?, 0x0?)
	/root/.cache/svmc/runtime-01755309040c7951/rtlib/bodypanic.go:41 +0xb3
github.com/svmc/svmc/rtlib.(*run).procMain(0x3d186130a008, 0x3d186131c708, 0x62f558)
	/root/.cache/svmc/runtime-01755309040c7951/rtlib/run.go:1002 +0x113
github.com/svmc/svmc/rtlib.svmcProcessor1(0x0?, 0x0?, 0x0?)
	/root/.cache/svmc/runtime-01755309040c7951/rtlib/procnames.go:55 +0x13
created by github.com/svmc/svmc/rtlib.Run in goroutine 1
	/root/.cache/svmc/runtime-01755309040c7951/rtlib/run.go:739 +0x241c
`
	stackOverflowReport = `runtime: goroutine stack exceeds 1000000000-byte limit
runtime: sp=0x183ad41b8398 stack=[0x183ad41b8000, 0x183af41b8000]
fatal error: stack overflow

runtime stack:
runtime.throw({0x6204ec?, 0x183aa93fe160?})
	/usr/local/go/src/runtime/panic.go:1229 +0x48 fp=0x183aa93a3e98 sp=0x183aa93a3e68 pc=0x482d48

goroutine 26 gp=0x183aa9401a40 m=6 mp=0x183aa9478808 [running]:
github.com/svmc/svmc/rtlib.(*Proc).publish(0x183aa942c308?)
	/root/.cache/svmc/runtime-dae062e6b336fd17/rtlib/tracing.go:177 +0xe9 fp=0x183ad41b83a8 sp=0x183ad41b83a0 pc=0x5b0849
main.svm_depth(0x1?, 0x183ad41b85e0?)
	main.go:9 +0x7d fp=0x183ad41b85b8 sp=0x183ad41b8580 pc=0x5b8cbd
...8388489 frames elided...
github.com/svmc/svmc/rtlib.svmcProcessor0(0x0?, 0x0?, 0x0?)
	/root/.cache/svmc/runtime-dae062e6b336fd17/rtlib/procnames.go:55 +0x13 fp=0x183af41b7f90 sp=0x183af41b7f68 pc=0x58aab3

goroutine 1 gp=0x183aa9334000 m=nil [semacquire]:
main.other()
	main.go:40 +0x10
`
	initPanicReport = `panic: helper: cannot load table

goroutine 1 [running]:
example.com/x533/helper.load(...)
	/work/x533/helper/helper.go:9
example.com/x533/helper.init()
	/work/x533/helper/helper.go:5 +0x9f
`
)

// TestCrashFilter: the runtime's report of a crash becomes the message
// and the line, written in pieces as the runtime writes it; the program's
// own lines, even one that begins as a report does, pass unchanged and
// in order.
func TestCrashFilter(t *testing.T) {
	for _, c := range []struct {
		name, in, want, who string
	}{
		{"map writes", "out 1\n" + mapWritesReport,
			"out 1\nsvmc: processor 1 crashed: fatal error: concurrent map writes\n\tat main.go:13\n", "processor 1 crashed"},
		{"stack overflow", stackOverflowReport,
			"svmc: processor 0 crashed: fatal error: stack overflow\n\tat main.go:9\n", "processor 0 crashed"},
		{"init panic", initPanicReport,
			"svmc: the program panicked while its packages were initialised, before main: helper: cannot load table\n\tat /work/x533/helper/helper.go:9\n",
			"the program panicked while its packages were initialised, before main"},
		{"own lines", "panic: mine\nrunning: 50%\rrunning: 100%\npa", "panic: mine\nrunning: 50%\rrunning: 100%\npa", ""},
	} {
		for _, size := range []int{1, 3, 7, 1 << 20} {
			var out bytes.Buffer
			f := newCrashFilter(&out)
			for in := c.in; in != ""; {
				n := min(size, len(in))
				f.Write([]byte(in[:n]))
				in = in[n:]
			}
			who := f.finish(true)
			got := out.String()
			if c.who != "" {
				got = strings.TrimSuffix(got, "svmc: the Go runtime's report of it is left out; GOTRACEBACK=single in the environment shows it\n")
			}
			if got != c.want || who != c.who {
				t.Errorf("%s, written %d bytes at a time:\n%q (%q)\nwant\n%q (%q)", c.name, size, got, who, c.want, c.who)
			}
		}
	}
}

// TestCrashFilterLongReportInPieces: a report longer than heldLines (a
// stack overflow's hundreds of frames), written in pieces as the runtime
// prints it and read as fast as it is written, is still said in svmc's
// terms: the lines that make it sure of a crash are seen whole however
// they were cut.
func TestCrashFilterLongReportInPieces(t *testing.T) {
	head, tail, _ := strings.Cut(stackOverflowReport, "...8388489 frames elided...\n")
	frames := strings.Repeat("main.svm_depth(0x1?, 0x183ad41b85e0?)\n\tmain.go:9 +0x7d fp=0x183ad41b85b8 sp=0x183ad41b8580 pc=0x5b8cbd\n", 2*heldLines)
	report := head + frames + "...8388289 frames elided...\n" + tail
	want := "svmc: processor 0 crashed: fatal error: stack overflow\n\tat main.go:9\n"
	for _, size := range []int{1, 5, 13, 1 << 20} {
		var out bytes.Buffer
		f := newCrashFilter(&out)
		for in := report; in != ""; {
			n := min(size, len(in))
			f.Write([]byte(in[:n]))
			in = in[n:]
		}
		who := f.finish(true)
		got := strings.TrimSuffix(out.String(), "svmc: the Go runtime's report of it is left out; GOTRACEBACK=single in the environment shows it\n")
		if got != want || who != "processor 0 crashed" {
			t.Errorf("written %d bytes at a time: %q (%q)", size, got[:min(len(got), 300)], who)
		}
	}
}

// TestCrashFilterPassesLongHeld: a line of the program's that begins as a
// report does is passed on once heldLines lines followed it with no
// goroutine's stack, before the program ends.
func TestCrashFilterPassesLongHeld(t *testing.T) {
	var out bytes.Buffer
	f := newCrashFilter(&out)
	in := "panic: mine\n" + strings.Repeat("more\n", heldLines)
	f.Write([]byte(in))
	if got := out.String(); got != in {
		t.Errorf("before the end: %q, want %q", got, in)
	}
	f.Write([]byte(mapWritesReport))
	f.finish(true)
	if got := out.String(); !strings.HasPrefix(got, in+"svmc: processor 1 crashed: fatal error: concurrent map writes\n") {
		t.Errorf("then a crash: %q", got)
	}
}

// countingWriter counts the writes it takes.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestCrashFilterWritesOnce: the lines of one write of the program pass on
// in one write, not a system call a line.
func TestCrashFilterWritesOnce(t *testing.T) {
	var out countingWriter
	f := newCrashFilter(&out)
	in := strings.Repeat("log line\n", 1000) + "partial"
	f.Write([]byte(in))
	if out.writes != 1 || out.String() != in {
		t.Errorf("%d writes of %d bytes, want 1 of %d", out.writes, out.Len(), len(in))
	}
}

// TestCrashFilterLoggedPanic: a line that begins as a report does but is
// followed by no goroutine's stack (println("panic: ...") of the program)
// passes on once the program writes nothing for heldFor; a whole report
// of a program that did not end as Go's crashes do is left as written.
func TestCrashFilterLoggedPanic(t *testing.T) {
	var out bytes.Buffer
	f := newCrashFilter(&out)
	own := "panic: not really\nsome more\n"
	f.Write([]byte(own))
	got := ""
	for deadline := time.Now().Add(heldFor + 5*time.Second); got == "" && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond) // the timer's goroutine may be late on a loaded machine
		f.mu.Lock()
		got = out.String()
		f.mu.Unlock()
	}
	if got != own {
		t.Errorf("after %v of quiet: %q, want %q passed on", heldFor, got, own)
	}
	out.Reset()
	g := newCrashFilter(&out)
	g.Write([]byte(mapWritesReport))
	if who := g.finish(false); who != "" || out.String() != mapWritesReport {
		t.Errorf("a program that did not crash: %q (%q), want its text as written", out.String(), who)
	}
}

// TestCrashFilterLoggingGoesOn: a runtime's note that is no crash
// ("runtime: ...") followed by more writes, one every 50 ms, passes on once
// heldMost has gone by; a crash's report, whose traceback may take
// seconds, is held however long it takes.
func TestCrashFilterLoggingGoesOn(t *testing.T) {
	defer func(d time.Duration) { heldMost = d }(heldMost)
	heldMost = 300 * time.Millisecond
	var out bytes.Buffer
	f := newCrashFilter(&out)
	note := "runtime: note: a warning\n"
	f.Write([]byte(note))
	for range 10 {
		time.Sleep(50 * time.Millisecond)
		f.Write([]byte("still here\n"))
	}
	f.mu.Lock()
	got := out.String()
	f.mu.Unlock()
	if !strings.HasPrefix(got, note+"still here\n") {
		t.Errorf("after 500 ms of writes: %q, want the note and the lines passed on", got)
	}
	f.finish(false)
	out.Reset()
	g := newCrashFilter(&out)
	g.Write([]byte(stackOverflowReport[:200]))
	time.Sleep(heldFor + heldMost)
	g.Write([]byte(stackOverflowReport[200:]))
	if who := g.finish(true); who != "processor 0 crashed" {
		t.Errorf("a slow report: %q (%q)", out.String(), who)
	}
}

// TestCrashAtSkipsRuntimePackages: the line a crash is said to be at is
// the program's, past the frames of the packages written out with the
// runtime: a traced recursion's stack overflowed in trace.Buf.Rec3, and
// svmc said "at /root/.cache/svmc/runtime-…/trace/buf.go:92" (CI110).
func TestCrashAtSkipsRuntimePackages(t *testing.T) {
	rep := `runtime: goroutine stack exceeds 1000000000-byte limit
fatal error: stack overflow

runtime stack:
runtime.throw({0x5c1b2e?, 0x0?})
	/usr/local/go/src/runtime/panic.go:1094 +0x48

goroutine 18 gp=0xc000102000 m=3 mp=0xc000100008 [running]:
github.com/svmc/svmc/trace.(*Buf).Rec3(0xc0001a0080, 0x5dd, 0x1, 0x40f0000000000000, 0x2, 0x0, 0x1)
	/root/.cache/svmc/runtime-2da8138849fb90ee/trace/buf.go:92 +0x1f
github.com/svmc/svmc/rtlib.(*Proc).regionRec(...)
	/root/.cache/svmc/runtime-2da8138849fb90ee/rtlib/tracing.go:505
main.svm_fib(0xc0001a0000, 0x3)
	/tmp/prog/main.go:11 +0x25
github.com/svmc/svmc/rtlib.svmcProcessor1(0xc0001a0000)
	/root/.cache/svmc/runtime-2da8138849fb90ee/rtlib/procnames.go:12 +0x1f
`
	msg, at, who, ok := parseCrash(rep)
	if !ok || msg != "fatal error: stack overflow" || at != "/tmp/prog/main.go:11" || who != "processor 1 crashed" {
		t.Errorf("parseCrash: %q at %q, %q, %v; want the stack overflow at /tmp/prog/main.go:11 on processor 1", msg, at, who, ok)
	}
}
