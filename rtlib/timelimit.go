package rtlib

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/svmc/svmc/trace"
)

// TimeLimitError ends a run that reached its time limit (time_limit): it
// stops as on SIGTERM, and says what each processor was doing, so that a
// hang the deadlock detection cannot see (Go channels, sync.Mutex) is
// found at its line.
type TimeLimitError struct {
	Limit  time.Duration
	States []string // per processor
}

func (e *TimeLimitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "time limit %v reached: the run was stopped", e.Limit)
	for i, s := range e.States {
		fmt.Fprintf(&b, "\n  processor %d: %s", i, s)
	}
	return b.String()
}

// EndStatus is the trace-end status: stopped from outside, as by SIGTERM.
func (e *TimeLimitError) EndStatus() int { return trace.EndTerminate }

// ExitCode is timeout(1)'s.
func (e *TimeLimitError) ExitCode() int { return 124 }

func (r *run) timeLimitError(limit time.Duration) error {
	e := &TimeLimitError{Limit: limit, States: make([]string, r.n)}
	stacks := goroutineStacks()
	for i, p := range r.procs {
		s := p.wstate.Load()
		k := waitKind(s & 0xff)
		if k != wRunning {
			site := p.wsite.Load()
			at := Site{Sub: int(int32(uint32(site >> 32))), Dir: int(int32(uint32(site)))}
			e.States[i] = r.waitText(k, at, int(p.wpeer.Load()))
			continue
		}
		// No frame of the program's: in svmc's runtime, most often
		// waiting for the leader's next construct.
		e.States[i] = "in svmc's runtime, outside the program's code (most likely waiting for the next construct)"
		if st, ok := stacks[p.goid.Load()]; ok {
			e.States[i] = st
		}
	}
	return e
}

// goid is the calling goroutine's id, as runtime.Stack prints it.
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, _ = bytes.CutPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		id, _ := strconv.ParseInt(string(b[:i]), 10, 64)
		return id
	}
	return 0
}

// goroutine is one goroutine of runtime.Stack's dump: its id, its state
// ("chan receive", "running") and its innermost frame of the program
// (outside the Go runtime and rtlib), "main.worker at /src/main.go:20", ""
// when it has none (one of the runtime's own).
type goroutine struct {
	id           int64
	state, where string
}

// allGoroutines lists every goroutine (a dump of all stacks: only when a
// run is stopped or looked at for a deadlock).
func allGoroutines() []goroutine {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return parseStacks(string(buf))
}

// parseStacks reads a dump of all stacks (runtime.Stack's text): each
// goroutine's number, state, and its first frame of the program's own.
func parseStacks(dump string) []goroutine {
	var out []goroutine
	for _, g := range strings.Split(dump, "\n\n") {
		lines := strings.Split(g, "\n")
		head, ok := strings.CutPrefix(lines[0], "goroutine ")
		if !ok {
			continue
		}
		idText, state, _ := strings.Cut(head, " [")
		id, _ := strconv.ParseInt(idText, 10, 64)
		state, _, _ = strings.Cut(state, "]")
		state, _, _ = strings.Cut(state, ",") // "chan receive, 2 minutes"
		gr := goroutine{id: id, state: state}
		for i := 1; i+1 < len(lines); i += 2 {
			fn := lines[i]
			if strings.HasPrefix(fn, "created by ") {
				break // where it was started, not a frame
			}
			if j := strings.LastIndexByte(fn, '('); j > 0 {
				fn = fn[:j]
			}
			if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "sync.") || strings.HasPrefix(fn, "internal/") ||
				strings.HasPrefix(fn, "time.") || strings.HasPrefix(fn, rtPkg) || strings.HasPrefix(fn, strings.TrimSuffix(rtPkg, ".")+"/") ||
				strings.HasPrefix(fn, "reflect.") || strings.HasPrefix(fn, "os/signal.") || strings.HasPrefix(fn, "testing.") {
				continue
			}
			loc := strings.TrimSpace(lines[i+1])
			if j := strings.LastIndex(loc, " +0x"); j > 0 {
				loc = loc[:j]
			}
			gr.where = userFunc(fn) + " at " + loc
			break
		}
		out = append(out, gr)
	}
	return out
}

// userFunc is the function the user wrote around frame function fn. The
// instrumented twin of a function is svm_F (svmc's reserved prefix), its
// traced entry svm_svm_F and its plain clone svm_svm_svm_F: the user wrote
// F. A function literal's frame (F.func1, F.func1.2, and the
// go and defer wrappers F.gowrap1, F.deferwrap1) is named by the function
// it is written in: svmc's own literals (main's body, pdo bodies) shift
// Go's numbering of the user's ones, so F.func2 would name the wrong
// literal while F and the frame's line name the right code.
func userFunc(fn string) string {
	for strings.Contains(fn, ".svm_") {
		fn = strings.ReplaceAll(fn, ".svm_", ".")
	}
	for {
		rest, last := cutLast(fn)
		if isNumber(last) { // F.func1.2: the second literal in F.func1
			if _, prev := cutLast(rest); literalName(prev) {
				fn = rest
				continue
			}
		}
		if !literalName(last) {
			return fn
		}
		fn = rest
	}
}

// cutLast splits a function name at its last dot (a dot in brackets, of a
// type argument, does not count: it is not the last character before one).
func cutLast(fn string) (rest, last string) {
	i := strings.LastIndexByte(fn, '.')
	if i < 0 || strings.ContainsAny(fn[i:], "]") {
		return fn, ""
	}
	return fn[:i], fn[i+1:]
}

// literalName reports whether seg names a function literal or a go or
// defer wrapper the Go compiler made: func1, gowrap2, deferwrap1.
func literalName(seg string) bool {
	for _, p := range []string{"func", "gowrap", "deferwrap"} {
		if n, ok := strings.CutPrefix(seg, p); ok && isNumber(n) {
			return true
		}
	}
	return false
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// goroutineStacks describes every goroutine with a frame of the program
// by its state and that frame: "blocked (chan receive) in main.worker at
// /src/main.go:20" or "running in main.main at ...".
func goroutineStacks() map[int64]string {
	out := map[int64]string{}
	for _, g := range allGoroutines() {
		if g.where == "" {
			continue
		}
		what := "running"
		if g.state != "running" && g.state != "runnable" {
			what = "blocked (" + g.state + ")"
		}
		out[g.id] = what + " in " + g.where
	}
	return out
}
