package rtlib

// A processor's goroutine starts in a function named after it,
// svmcProcessor<N>, so that a stack names the processor at its bottom:
// the race detector's reports (svmc run --race), whose goroutine numbers
// are its own, and the Go runtime's report of a fatal error (concurrent
// map writes, a stack overflow), which svmc run turns into a message
// naming the processor and the line (cmd/svmc crashFilter). Above 15 the
// function is svmcProcessorMany. It costs a call when a processor starts.

// startProc runs processor p's goroutine.
func startProc(r *run, p *Proc, body func(*Proc)) {
	switch p.id {
	case 0:
		svmcProcessor0(r, p, body)
	case 1:
		svmcProcessor1(r, p, body)
	case 2:
		svmcProcessor2(r, p, body)
	case 3:
		svmcProcessor3(r, p, body)
	case 4:
		svmcProcessor4(r, p, body)
	case 5:
		svmcProcessor5(r, p, body)
	case 6:
		svmcProcessor6(r, p, body)
	case 7:
		svmcProcessor7(r, p, body)
	case 8:
		svmcProcessor8(r, p, body)
	case 9:
		svmcProcessor9(r, p, body)
	case 10:
		svmcProcessor10(r, p, body)
	case 11:
		svmcProcessor11(r, p, body)
	case 12:
		svmcProcessor12(r, p, body)
	case 13:
		svmcProcessor13(r, p, body)
	case 14:
		svmcProcessor14(r, p, body)
	case 15:
		svmcProcessor15(r, p, body)
	default:
		svmcProcessorMany(r, p, body)
	}
}

//go:noinline
func svmcProcessor0(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor1(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor2(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor3(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor4(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor5(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor6(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor7(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor8(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor9(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor10(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor11(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor12(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor13(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor14(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessor15(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }

//go:noinline
func svmcProcessorMany(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }
