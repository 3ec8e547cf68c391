package rtlib

import (
	"context"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
)

// A program that handles SIGINT or SIGTERM itself (signal.NotifyContext
// for a graceful shutdown, as Go servers and tools do) decides when to end:
// the runtime's own handler, which stops the run and completes the trace
// when nothing else would, steps aside for such a signal while the program
// takes it, and the trace is completed when the program returns or exits.
// The generated code calls these functions in place of os/signal's (same
// signatures), so that the runtime knows which signals the program takes.
//
// The runtime watches each of its two signals on a channel of its own, so
// that it can stop watching one (signal.Stop) while the program takes it
// and watch it again before the program lets it go: a signal always has a
// handler, and one that arrives while the program takes it is the
// program's alone.

// progSignals are the program's registrations (per channel, or per
// NotifyContext, the signals it asked for, none meaning all) and the
// runtime's own watches.
var progSignals struct {
	mu      sync.Mutex
	regs    map[any][]os.Signal
	ignored map[os.Signal]bool
	own     map[os.Signal]*ownWatch
}

type ownWatch struct {
	c  chan os.Signal
	on bool
}

// watchSignals makes the runtime's watches of SIGINT, SIGTERM and SIGHUP
// (a closed terminal or session), each forwarded to out (Main's handler).
// A SIGHUP ignored when the program started (nohup) stays ignored:
// watching it would end the run the user asked to survive a hangup.
// SIGINT and SIGTERM are watched even then, as before (a shell without
// job control starts background jobs with SIGINT ignored, and kill -INT
// of such a run still completes its trace).
func watchSignals(out chan<- os.Signal) {
	progSignals.mu.Lock()
	defer progSignals.mu.Unlock()
	progSignals.own = map[os.Signal]*ownWatch{}
	for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		if s == syscall.SIGHUP && signal.Ignored(s) {
			if progSignals.ignored == nil {
				progSignals.ignored = map[os.Signal]bool{}
			}
			progSignals.ignored[s] = true
		}
		w := &ownWatch{c: make(chan os.Signal, 1)}
		progSignals.own[s] = w
		go func() {
			for v := range w.c {
				out <- v
			}
		}()
	}
	resyncLocked()
}

// resyncLocked watches each of the runtime's signals the program neither
// takes nor ignores, and no other; progSignals.mu is held.
func resyncLocked() {
	for s, w := range progSignals.own {
		want := !takenLocked(s) && !progSignals.ignored[s]
		switch {
		case want && !w.on:
			signal.Notify(w.c, s)
		case !want && w.on:
			signal.Stop(w.c)
		}
		w.on = want
	}
}

func takenLocked(s os.Signal) bool {
	for _, sigs := range progSignals.regs {
		if len(sigs) == 0 || slices.Contains(sigs, s) {
			return true
		}
	}
	return false
}

// programTakes reports whether the program has asked for signal s.
func programTakes(s os.Signal) bool {
	progSignals.mu.Lock()
	defer progSignals.mu.Unlock()
	return takenLocked(s)
}

func registerLocked(key any, sig []os.Signal) {
	if progSignals.regs == nil {
		progSignals.regs = map[any][]os.Signal{}
	}
	old, ok := progSignals.regs[key]
	if len(sig) == 0 || ok && len(old) == 0 {
		progSignals.regs[key] = []os.Signal{} // all
	} else {
		progSignals.regs[key] = append(old, sig...)
	}
	for _, s := range sig { // Notify undoes Ignore
		delete(progSignals.ignored, s)
	}
	if len(sig) == 0 {
		clear(progSignals.ignored)
	}
}

// SignalNotify is signal.Notify.
func SignalNotify(c chan<- os.Signal, sig ...os.Signal) {
	signal.Notify(c, sig...)
	progSignals.mu.Lock()
	registerLocked(c, sig)
	resyncLocked()
	progSignals.mu.Unlock()
}

// SignalStop is signal.Stop.
func SignalStop(c chan<- os.Signal) {
	progSignals.mu.Lock()
	delete(progSignals.regs, c)
	resyncLocked()
	progSignals.mu.Unlock()
	signal.Stop(c)
}

// SignalNotifyContext is signal.NotifyContext.
func SignalNotifyContext(parent context.Context, sig ...os.Signal) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(parent, sig...)
	key := new(byte)
	progSignals.mu.Lock()
	registerLocked(key, sig)
	resyncLocked()
	progSignals.mu.Unlock()
	return ctx, func() {
		progSignals.mu.Lock()
		delete(progSignals.regs, key)
		resyncLocked()
		progSignals.mu.Unlock()
		stop()
	}
}

// SignalIgnore is signal.Ignore: the runtime stops watching them too, as
// the program asked.
func SignalIgnore(sig ...os.Signal) {
	progSignals.mu.Lock()
	if progSignals.ignored == nil {
		progSignals.ignored = map[os.Signal]bool{}
	}
	for s := range progSignals.own {
		if len(sig) == 0 || slices.Contains(sig, s) {
			progSignals.ignored[s] = true
		}
	}
	resyncLocked()
	progSignals.mu.Unlock()
	signal.Ignore(sig...)
}

// SignalReset is signal.Reset: the program's registrations of the signals
// end, and the runtime watches its own again.
func SignalReset(sig ...os.Signal) {
	signal.Reset(sig...)
	progSignals.mu.Lock()
	defer progSignals.mu.Unlock()
	reset := func(s os.Signal) bool { return len(sig) == 0 || slices.Contains(sig, s) }
	for k, sigs := range progSignals.regs {
		switch {
		case len(sig) == 0:
			delete(progSignals.regs, k)
		case len(sigs) > 0:
			if progSignals.regs[k] = slices.DeleteFunc(sigs, reset); len(progSignals.regs[k]) == 0 {
				delete(progSignals.regs, k)
			}
		}
	}
	for s, w := range progSignals.own {
		if reset(s) {
			delete(progSignals.ignored, s)
			w.on = false // Reset ended the runtime's watch too
		}
	}
	resyncLocked()
}

// programTakesAny reports whether the program has asked for any signal:
// then a signal may yet wake a goroutine that waits for it.
func programTakesAny() bool {
	progSignals.mu.Lock()
	defer progSignals.mu.Unlock()
	return len(progSignals.regs) > 0
}
