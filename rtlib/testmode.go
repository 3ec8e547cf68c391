package rtlib

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// Processor 0 in svmc test. The generated TestMain runs the tests inside a
// run (its processor 0 waits in testing.M.Run while the other processors
// serve), and the goroutine the testing package starts for a test takes
// processor 0's place for the test's duration (OnLeader), so that the
// test's parallel constructs are dispatched to every processor. One
// goroutine at a time acts as processor 0 (lendMu, holder):
//
//   - a subtest started with t.Run (svmc rewrites it into SubRun) borrows
//     processor 0 from its parent, which waits in t.Run meanwhile, and
//     gives it back when it ends;
//   - t.Parallel (rewritten into TestParallel) gives processor 0 back
//     before the test pauses — to the parent it was borrowed from, or to
//     the next test — and asks for it again when the test resumes;
//   - a test that finds processor 0 taken (by a test running in parallel)
//     runs on its own goroutine's Proc instead: its constructs run serially
//     there, as on any goroutine that is not a processor, and say so.
//
// Outside a run (go test of the plain package) a test runs on the
// goroutine's own Proc, as any call does. A test must not call t.FailNow
// (t.Fatal) inside a parallel loop body: as with any goroutine but the
// test's, it would end a processor in the middle of the loop.
var (
	lendMu sync.Mutex     // held while some test acts as processor 0
	holder atomic.Uintptr // the goroutine that acts as processor 0 now (0: none)
	// lentFrom maps a subtest's goroutine that borrowed processor 0 to
	// its parent's (a loan); a holder not in it took lendMu itself.
	lentFrom sync.Map
)

// loan is a subtest's borrowing of processor 0: from whom, and the
// parent's heldDepth to restore.
type loan struct {
	parent uintptr
	depth  int
}

// testRun is set once OnLeader ran: the run is svmc test's.
var testRun atomic.Bool

// heldDepth is the depth of processor 0's region stack when the current
// holder took it: the regions above are the holder's, closed when it gives
// processor 0 away in t.Parallel. Only the holder touches it.
var heldDepth int

// lentAway reports whether p is processor 0 and the calling goroutine no
// longer acts as it: a test function's traced entry ends after t.Parallel
// gave processor 0 away (TestParallel closed its region then), and must
// not touch processor 0, which another test may hold now.
func (p *Proc) lentAway() bool {
	return p.id == 0 && !p.detached && gProcs.load(getg()) != p
}

// OnLeader runs body as processor 0 of the active run, on the calling
// goroutine, if no other test acts as processor 0 (see above).
func OnLeader(body func(p *Proc)) {
	r := activeRun.Load()
	if r == nil || r.standalone || len(r.procs) == 0 {
		body(Current())
		return
	}
	if !testRun.Load() && testRun.CompareAndSwap(false, true) {
		noteInputs()
	}
	g := getg()
	if p := gProcs.load(g); p != nil && !p.detached && p.r == r {
		body(p) // already a processor: a test function called by another
		return
	}
	if !lendMu.TryLock() {
		p := Current()
		p.beside = true
		defer completeOnPanic(r, g)
		body(p)
		return
	}
	holder.Store(g)
	heldDepth = len(r.procs[0].regions)
	prev := gProcs.load(g)
	gProcs.store(g, r.procs[0])
	defer func() {
		gProcs.store(g, prev)
		giveBack(g) // unless t.Parallel gave it away and it was not taken back
	}()
	defer completeOnPanic(r, g)
	body(r.procs[0])
}

// testPanicking is set when a test of the run panicked: the
// testing package reports the panic and ends the process, after the run
// has completed the trace (Main waits for that end).
var testPanicking atomic.Bool

// completeOnPanic, deferred by a test's goroutine g (acting as processor 0,
// or beside the one that does), completes the run's trace when the test
// panics, then panics on: the testing package reports a test's panic and
// ends the process with it, which left the trace under its partial name.
func completeOnPanic(r *run, g uintptr) {
	v := recover()
	if v == nil {
		return
	}
	if !r.done.Load() {
		testPanicking.Store(true)
		if p := r.procs[0]; holder.Load() == g {
			r.fail(p.panicError(v))
			p.ended()
		} else {
			// A test beside the one that holds processor 0 (t.Parallel):
			// that one stops at its next construct, or the run's bounded
			// wait ends.
			r.fail(&Error{Pos: userFrame(), Proc: -1, Msg: fmt.Sprintf("a test running beside the one on processor 0 (t.Parallel) panicked: %v", v)})
		}
		deadline := time.Now().Add(2*r.stopWait + time.Second)
		for !r.done.Load() && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	panic(v)
}

// SubRun is t.Run(name, f) for a test that acts as processor 0: the
// subtest borrows processor 0 while the test waits in t.Run.
func SubRun[R interface {
	Run(string, func(T)) bool
}, T any](t R, name string, f func(T)) bool {
	r, g := activeRun.Load(), getg()
	if r == nil || g == 0 || holder.Load() != g {
		return t.Run(name, f)
	}
	return t.Run(name, func(sub T) { borrow(r, g, func() { f(sub) }) })
}

// borrow runs f on the calling goroutine as processor 0, borrowed from
// goroutine g, which waits meanwhile (in t.Run, in f.Fuzz); f runs on the
// goroutine's own Proc if g gave processor 0 away meanwhile.
func borrow(r *run, g uintptr, f func()) {
	c := getg()
	if !holder.CompareAndSwap(g, c) {
		f()
		return
	}
	lentFrom.Store(c, loan{g, heldDepth})
	heldDepth = len(r.procs[0].regions)
	prev := gProcs.load(c)
	gProcs.store(c, r.procs[0])
	defer func() {
		gProcs.store(c, prev)
		giveBack(c)
	}()
	defer completeOnPanic(r, c)
	f()
}

// SubFuzz is f.Fuzz(ff) for a fuzz test that acts as processor 0: each
// call of ff (a seed of the corpus, or an input the fuzzing engine made)
// runs on a goroutine of its own, as a subtest does, and borrows processor
// 0 as SubRun's subtest does, so that its constructs use every processor.
// ff's type is the program's own (func(*testing.T, ...)): the wrapper is
// made with reflect, as the testing package calls ff.
func SubFuzz[F interface{ Fuzz(any) }](f F, ff any) {
	r, g := activeRun.Load(), getg()
	v := reflect.ValueOf(ff)
	if r == nil || g == 0 || holder.Load() != g || v.Kind() != reflect.Func {
		f.Fuzz(ff) // the testing package reports a bad ff
		return
	}
	f.Fuzz(reflect.MakeFunc(v.Type(), func(args []reflect.Value) (out []reflect.Value) {
		borrow(r, g, func() { out = v.Call(args) })
		return out
	}).Interface())
}

// giveBack ends goroutine c's turn as processor 0, if it has one: to the
// parent it borrowed it from, or to whichever test asks next.
func giveBack(c uintptr) {
	if l, ok := lentFrom.LoadAndDelete(c); ok {
		if l := l.(loan); holder.Load() == c { // only the holder moves it
			heldDepth = l.depth
			holder.Store(l.parent)
		}
		return
	}
	if holder.CompareAndSwap(c, 0) {
		lendMu.Unlock()
	}
}

// TestParallel is t.Parallel() for test code that may act as processor 0
// (p): it gives processor 0 back before the test pauses and returns the
// Proc the test runs on when it resumes — processor 0 again if it is free,
// else the goroutine's own (its constructs then run serially).
func TestParallel(p *Proc, t interface{ Parallel() }) *Proc {
	r, c := activeRun.Load(), getg()
	if r == nil || c == 0 || holder.Load() != c {
		t.Parallel()
		return p
	}
	if p := r.procs[0]; len(p.regions) > heldDepth {
		p.closeRegionsAbove(heldDepth) // the test's regions end as it pauses
	}
	gProcs.store(c, nil)
	giveBack(c)
	t.Parallel()
	if lendMu.TryLock() {
		holder.Store(c)
		heldDepth = len(r.procs[0].regions)
		gProcs.store(c, r.procs[0])
		return r.procs[0]
	}
	q := Current()
	q.beside = true
	return q
}
