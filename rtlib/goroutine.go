package rtlib

import "reflect"

// Goroutines the program starts are not processors, and a panic in one
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
	v := recover()
	if v == nil {
		return
	}
	r := activeRun.Load()
	if r == nil || r.standalone || r.done.Load() {
		panic(v)
	}
	r.fail(&PanicError{Proc: -1, Value: v, At: userFrame(), Started: started})
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
	w := reflect.MakeFunc(v.Type(), func(args []reflect.Value) []reflect.Value {
		defer Recover(started)
		if variadic {
			return v.CallSlice(args)
		}
		return v.Call(args)
	})
	return w.Interface().(F)
}
