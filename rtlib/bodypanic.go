package rtlib

import (
	"reflect"
	"runtime"
	"slices"
)

// A panic in a pdo's iteration behaves as in the serial program: it leaves
// the loop and unwinds the function that holds it, where a deferred
// recover may take it (a parser that panics on bad input, recovered by its
// caller). The member whose iteration panicked stops its share; the others
// finish theirs, the pdo ends as usual (its barrier, its records), and then
// the panic is raised again, with the same value, on every processor that
// runs the code around the pdo: the leader in exclusive mode, every member
// in replicated mode, each with its own copy of the caller's defers. Of
// several panicking iterations the one the serial loop reaches first is
// raised; a pdo that panicked combines no reduction, and the critical
// sections and locks the panic left are left (catch). Sections are alike:
// a section that panics ends, the psection ends, and the panic of the
// first section in the program's order is raised again after it. Between
// ranks such a panic ends the job (the value would have to travel between
// processes): a rank must not recover it and go on without the others.

// bodyPanic is a panic caught in a member's share of a pdo.
type bodyPanic struct {
	value any
	proc  int    // the member whose iteration panicked
	at    string // "file:line" of the panicking frame
	pos   []int  // the iteration: its position in each loop of the nest
	init  string // "file:line" of the initialiser that raised it (initpanic.go)
}

// callBody runs body over p's share and returns the panic it raised, if
// any, after closing the regions the unwound frames had opened.
func (p *Proc) callBody(body func(p *Proc, it *Iter), it *Iter) (caught *bodyPanic) {
	d := p.depths()
	p.inBody++
	returned := false
	defer p.catch(&caught, d, it, &returned)
	body(p, it)
	returned = true
	p.dropStale(d)
	return nil
}

// callSection runs a section's body on its leader p, as callBody.
func (p *Proc) callSection(body func(p *Proc)) (caught *bodyPanic) {
	d := p.depths()
	p.inBody++
	returned := false
	defer p.catch(&caught, d, nil, &returned)
	body(p)
	returned = true
	p.dropStale(d)
	return nil
}

// dropStale ends the critical sections and LOCKs a body that returned
// still holds: a panic the body recovered left them (locks.go).
func (p *Proc) dropStale(d depths) {
	if len(p.sync.crit) > d.crit || len(p.sync.locks) > d.locks {
		p.abandon(d.crit, d.locks)
	}
}

// depths is how deep a body starts in p's regions, critical sections and
// locks: what a panic unwinds above them, catch ends.
type depths struct{ regions, crit, locks int }

func (p *Proc) depths() depths {
	return depths{len(p.regions), len(p.sync.crit), len(p.sync.locks)}
}

// catch, deferred, takes a panic of a body into *caught, leaves the
// critical sections and locks it left held (the other processors would
// wait for them forever) and closes the regions it left open; it is the
// iteration that panicked (nil for a section).
func (p *Proc) catch(caught **bodyPanic, d depths, it *Iter, returned *bool) {
	p.inBody--
	v := recover()
	if v == nil {
		if !*returned {
			p.goexitInBody()
		}
		return
	}
	c := &bodyPanic{value: v, proc: p.id, at: userFrame()}
	if p.r.ranks != nil {
		// The other ranks cannot raise it again: the job ends here,
		// rather than this rank's copy of the code around the construct
		// recovering it and going on without the other ranks.
		p.die(&PanicError{Proc: p.id, Value: v, At: c.at})
	}
	if it != nil {
		c.pos = it.position()
	}
	p.abandon(d.crit, d.locks)
	if len(p.regions) > d.regions {
		p.closeRegionsAbove(d.regions)
	}
	*caught = c
}

// firstOf is the first panic of a psection's sections, in section order.
func firstOf(caught []*bodyPanic) *bodyPanic {
	for _, c := range caught {
		if c != nil {
			return c
		}
	}
	return nil
}

// position is the current iteration as counts from each loop's first value.
func (it *Iter) position() []int {
	pos := make([]int, len(it.idx))
	for l := range pos {
		if s := it.lv[l].step; s != 0 {
			pos[l] = (it.idx[l] - it.lv[l].lo) / s
		}
	}
	return pos
}

// firstPanic is the panic of the members' shares that the serial loop would
// have raised: the earliest iteration. Called by the leader once every
// member arrived at the pdo's barrier.
func (a *aps) firstPanic() *bodyPanic {
	var first *bodyPanic
	for i := range a.slots {
		c := a.slots[i].it.caught
		if c != nil && (first == nil || slices.Compare(c.pos, first.pos) < 0) {
			first = c
		}
	}
	return first
}

// rethrow raises the panic of a pdo's iteration on p, after the pdo ended.
func (p *Proc) rethrow(c *bodyPanic) {
	if c == nil {
		return
	}
	if s, ok := c.value.(testStop); ok {
		switch {
		case p.id == 0:
			s.stop() // the test's goroutine (teststop.go)
		case p.mode == replicated:
			return // processor 0 stops the test
		}
	}
	p.rethrown = c
	panic(c.value)
}

// panicError is the failure of processor p whose goroutine ended with panic
// value v: a panic raised again after a pdo names the iteration's processor
// and line.
func (p *Proc) panicError(v any) *PanicError {
	if c := p.rethrown; c != nil && c.raised(v) {
		return &PanicError{Proc: c.proc, Value: v, At: c.at, Init: c.init}
	}
	return &PanicError{Proc: p.id, Value: v, At: userFrame()}
}

// raised reports whether v is the value c raised (or one of the same
// uncomparable type: a slice or map cannot be compared).
func (c *bodyPanic) raised(v any) (same bool) {
	defer func() {
		if recover() != nil {
			same = reflect.TypeOf(v) == reflect.TypeOf(c.value)
		}
	}()
	return v == c.value
}

// goexitInBody ends the run when a body leaves by runtime.Goexit, which
// nothing can stop: the construct cannot end without this processor (its
// barrier would wait for it until the deadlock watchdog spoke). svmc
// compiles testing's t.Fatal and its kin on a variable or a field into
// stand-ins that end the test properly (teststop.go); what is left is a
// direct runtime.Goexit, or those methods called on a value a call returns.
func (p *Proc) goexitInBody() {
	if p.r.exiting() || p.r.aborting.Load() {
		return // os.Exit, or the run ending with an error: the runtime's own Goexit
	}
	// Where the program's code called it: testing's FailNow is passed over.
	pcs := make([]uintptr, 64)
	at := firstUserFrame(pcs[:runtime.Callers(2, pcs)], "testing.")
	p.r.fail(&Error{Pos: at, Proc: p.id, Msg: "an iteration or section left its construct by runtime.Goexit" +
		" (runtime.Goexit, or t.Fatal, t.FailNow or t.Skip on a value a call returns?): the construct cannot end without this processor; " +
		"call them on a variable (t := tb(); t.Fatal(...)), which svmc compiles to end the test after the construct, or return an error"})
}
