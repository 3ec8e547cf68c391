package rtlib

import (
	"io"
	"testing"
)

// The call of an instrumented function, in the forms svmc has generated:
// fibPlain is the plain build; fibGate is today's (the traced entry
// behind Trace, no defer in the body); fibDefer is the earlier form, a
// conditional defer in the body.

func fibPlain(n int) int {
	if n < 2 {
		return n
	}
	return fibPlain(n-1) + fibPlain(n-2)
}

func fibGate(p *Proc, n int) int {
	if p.Trace(2) {
		return fibGateEntry(p, n)
	}
	if n < 2 {
		return n
	}
	return fibGate(p, n-1) + fibGate(p, n-2)
}

func fibGateEntry(p *Proc, n int) int {
	p.Enter(2)
	defer p.Exit(2)
	return fibGate(p, n)
}

func fibDefer(p *Proc, n int) int {
	if p.Tracked() {
		p.Enter(2)
		defer p.Exit(2)
	}
	if n < 2 {
		return n
	}
	return fibDefer(p, n-1) + fibDefer(p, n-2)
}

var callSink int

// BenchmarkSubprogramCall: fib(20), 21 891 calls per op, at stage 0 in
// each form, and traced with the subprogram throttled (after its first
// 1000 calls: the op then measures the gate's countdown and the outermost
// call's entry).
//
//	go test -run '^$' -bench SubprogramCall ./rtlib
func BenchmarkSubprogramCall(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			callSink += fibPlain(20)
		}
	})
	for _, c := range []struct {
		name  string
		stage int
		fib   func(*Proc, int) int
	}{{"stage0-gate", 0, fibGate}, {"stage0-defer", 0, fibDefer}, {"throttled-gate", 1, fibGate}} {
		b.Run(c.name, func(b *testing.B) {
			par := Params{NProcs: 1, Stage: c.stage, Trace: io.Discard, Stderr: io.Discard, ThrottleCalls: 1000, ThrottleUs: 1000}
			err := Run(testProg(), par, func(p *Proc) {
				callSink += c.fib(p, 20) // throttled from here on, when traced
				b.ResetTimer()
				for b.Loop() {
					callSink += c.fib(p, 20)
				}
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
