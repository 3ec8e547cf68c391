package rtlib

import "reflect"

// Goroutines the program starts are not processors (they get lanes of the
// processor that started them while it traces, lanes.go), and a panic in one
// would kill the process with Go's stack trace before the trace is
// written. svmc rewrites every go statement of the program so that Recover
// is deferred first in the new goroutine: a go statement of a function
// literal gets "defer Recover(pos)" as its first statement, any other one
// calls Guard(f, pos)(args) instead of f(args), which keeps Go's order of
// evaluation (the function value and the arguments in the goroutine that
// runs the go statement).

// Recover, deferred first in a goroutine the program started at started
// ("file:line:col"), ends the run as a processor's panic does: the other
// processors stop at their next safe point, the trace is completed and Main
// exits with status 2 naming the goroutine and the panic's line. Outside a
// run the panic goes on as it would without svmc.
func Recover(started string) {
	if v := recover(); v != nil {
		goPanicked(v, started, -1)
	}
}

// goPanicked ends the run for a panic v in a goroutine the program
// started, by processor by (-1: unknown) (recover must be called by the
// deferred function itself, so Recover and GoRecover call it and hand the
// value over).
func goPanicked(v any, started string, by int) {
	r := activeRun.Load()
	if r == nil || r.standalone || r.done.Load() {
		panic(v)
	}
	r.fail(&PanicError{Proc: -1, Value: v, At: userFrame(), Started: started, By: by})
	select {} // Main exits the process when the run is wound up
}

// Guard returns f wrapped so that a panic in it is handled by Recover:
// "go f(x)" becomes "go rtlib.Guard(f, pos)(x)". It costs a reflect call
// per goroutine started; go statements of function literals, the common
// form, do without it.
func Guard[F any](f F, started string) F {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Func || v.IsNil() {
		return f // go of a nil function fails in the caller, as without svmc
	}
	variadic := v.Type().IsVariadic()
	l := GoLane()
	w := reflect.MakeFunc(v.Type(), func(args []reflect.Value) []reflect.Value {
		defer GoRecover(l, started)
		l.GoEnter(started)
		if variadic {
			return v.CallSlice(args)
		}
		return v.Call(args)
	})
	return w.Interface().(F)
}

// Guard0 to Guard3 are Guard for functions of 0 to 3 parameters and no
// results, the common go statements: a closure instead of a reflect call
// (BenchmarkGoStatement: ~0.37 µs per goroutine started against ~2.5 µs
// with reflect; a plain go statement takes ~0.33 µs). svmc picks them from
// the callee's signature.
func Guard0(f func(), started string) func() {
	l := GoLane()
	return func() { defer GoRecover(l, started); l.GoEnter(started); f() }
}

// Guard0_1 is Guard0 for a function of one result, as an errgroup's Go
// takes (func() error).
func Guard0_1[R any](f func() R, started string) func() R {
	l := GoLane()
	return func() R { defer GoRecover(l, started); l.GoEnter(started); return f() }
}

// GuardLater0 is Guard0 for a function that a call runs on a goroutine of
// its own later, or maybe never (time.AfterFunc, context.AfterFunc): the
// lane is taken when it runs (takeTicket).
func GuardLater0(f func(), started string) func() {
	t := takeTicket()
	return func() { l := t.lane(); defer GoRecover(l, started); l.GoEnter(started); f() }
}

// GuardLater0_1 is GuardLater0 for a function of one result (an
// errgroup's TryGo).
func GuardLater0_1[R any](f func() R, started string) func() R {
	t := takeTicket()
	return func() R { l := t.lane(); defer GoRecover(l, started); l.GoEnter(started); return f() }
}

// Guard1 is Guard0 for one parameter.
func Guard1[A any](f func(A), started string) func(A) {
	l := GoLane()
	return func(a A) { defer GoRecover(l, started); l.GoEnter(started); f(a) }
}

// Guard2 is Guard0 for two parameters.
func Guard2[A, B any](f func(A, B), started string) func(A, B) {
	l := GoLane()
	return func(a A, b B) { defer GoRecover(l, started); l.GoEnter(started); f(a, b) }
}

// Guard3 is Guard0 for three parameters.
func Guard3[A, B, C any](f func(A, B, C), started string) func(A, B, C) {
	l := GoLane()
	return func(a A, b B, c C) { defer GoRecover(l, started); l.GoEnter(started); f(a, b, c) }
}
