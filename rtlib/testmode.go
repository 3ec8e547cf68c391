package rtlib

import (
	"sync"
	"sync/atomic"
)

// lendMu lets one goroutine at a time act as processor 0 (OnLeader).
var lendMu sync.Mutex

// testRun is set once OnLeader ran: the run is svmc test's, whose
// subtests (t.Run) run on goroutines of their own.
var testRun atomic.Bool

// OnLeader runs body as processor 0 of the active run, on the calling
// goroutine. svmc test wraps every test, benchmark, fuzz target and
// example in it: the generated TestMain runs the tests inside a run (its
// processor 0 waits in testing.M.Run while the other processors serve),
// and the goroutine the testing package starts for a test takes processor
// 0's place for the test's duration, so the test's parallel constructs
// are dispatched to every processor. A test that finds processor 0 taken
// (by a test running in parallel, or paused in t.Parallel while it held
// it) runs on its own goroutine's Proc instead: its constructs run serially
// there, as on any goroutine that is not a processor (waiting would hang a
// sequential test behind a paused parallel one). Outside a run (go test of
// the plain package) body runs on the goroutine's own Proc, as any call
// does. A test must not call
// t.FailNow (t.Fatal) inside a parallel loop body: as with any goroutine
// but the test's, it would end a processor in the middle of the loop.
func OnLeader(body func(p *Proc)) {
	r := activeRun.Load()
	if r == nil || r.standalone || len(r.procs) == 0 {
		body(Current())
		return
	}
	testRun.Store(true)
	g := getg()
	if p := gProcs.load(g); p != nil && !p.detached && p.r == r {
		body(p) // already a processor: a test function called by another
		return
	}
	if !lendMu.TryLock() {
		p := Current()
		p.beside = true
		body(p)
		return
	}
	defer lendMu.Unlock()
	prev := gProcs.load(g)
	gProcs.store(g, r.procs[0])
	defer gProcs.store(g, prev)
	body(r.procs[0])
}
