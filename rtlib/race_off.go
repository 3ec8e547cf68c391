//go:build !race

package rtlib

// startProc runs processor p's goroutine (see race.go).
func startProc(r *run, p *Proc, body func(*Proc)) { r.procMain(p, body) }
