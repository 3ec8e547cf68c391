package stats

import (
	"bytes"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
)

// clock is a clock the test moves by hand (ns).
type clock struct{ t int64 }

func (c *clock) now() int64 { return c.t }

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestCharging: user code is productive; a call made by k processors
// counts 1/k call and splits its time into 1/k productive and (k-1)/k lost
// (Lib-DVM's (n-1)/n rule); waiting for others is lost, waiting for work
// idle; the element is [the group the user called][the group running].
func TestCharging(t *testing.T) {
	c := &clock{}
	r := NewRun(2, 0, c.now)
	p0, p1 := r.Proc(0), r.Proc(1)
	c.t = 100 // p0 ran user code 100 ns, p1 waited for work
	sv := p0.Call(PDO, 2)
	c.t = 160
	w := p0.Wait()
	c.t = 200
	p0.Restore(w)
	c.t = 220
	p0.Restore(sv)
	p1.Restore(p1.Switch(Sync)) // a call of no time
	c.t = 300
	p0.Stop()
	p1.Stop()
	acc0, acc1 := &r.root.Acc[0], &r.root.Acc[1]
	if u := acc0.M[User][User]; !near(u.Prod, 100+80) || u.Lost != 0 {
		t.Errorf("p0 user %+v, want 180 ns productive", u)
	}
	if e := acc0.M[PDO][PDO]; !near(e.Calls, 0.5) || !near(e.Prod, 40) || !near(e.Lost, 40+40) {
		t.Errorf("p0 pdo %+v, want calls 0.5, productive 40 (80/2), lost 40 + 40 waiting", e)
	}
	if !near(acc1.Idle, 300) || !near(acc1.M[Sync][Sync].Calls, 1) {
		t.Errorf("p1 idle %v, sync calls %v; want 300 ns idle (before and after the call of no time) and one call", acc1.Idle, acc1.M[Sync][Sync].Calls)
	}
	var nilProc *Proc
	nilProc.Restore(nilProc.Call(PDO, 2)) // statistics off: nothing happens
	nilProc.Stop()
}

// TestIntervals: a measured interval a processor opens takes its time;
// one the leader opens in exclusive mode takes every processor's time
// while the leader is in it (EnterGlobal), split at the transitions; the
// summary includes the nested intervals in the enclosing ones.
func TestIntervals(t *testing.T) {
	c := &clock{}
	r := NewRun(2, 0, c.now)
	p0, p1 := r.Proc(0), r.Proc(1)
	loop := r.Child(r.root, "loop")
	if r.Child(r.root, "loop") != loop || loop.Level != 1 || loop.ID != 1 {
		t.Fatal("Child does not find the node again")
	}
	c.t = 50
	r.EnterGlobal(loop) // the leader enters "loop" at 50
	c.t = 150
	r.EnterGlobal(r.root) // and leaves it at 150
	c.t = 200
	p1.Restore(p1.User()) // p1's time 0..200 is split at 50 and 150
	if !near(r.root.Acc[1].Idle, 100) || !near(loop.Acc[1].Idle, 100) {
		t.Errorf("p1 idle: program %v, loop %v; want 100 and 100", r.root.Acc[1].Idle, loop.Acc[1].Idle)
	}
	own := r.Child(loop, "own")
	p0.Own = own
	c.t = 260
	p0.Stop() // all of p0's 0..260 goes to the interval it opened
	if !near(own.Acc[0].M[User][User].Prod, 260) {
		t.Errorf("own interval: %v", own.Acc[0].M[User][User].Prod)
	}
	own.Acc[0].Exec, own.Acc[0].Entries = 260, 1
	sums := r.Summarize([]bool{true, true}, 300)
	if len(sums) != 3 || sums[0].Node != r.root || sums[2].Node != own {
		t.Fatalf("summaries %v", sums)
	}
	prog, lp := sums[0], sums[1]
	if !near(prog.OUPT, 0.26) || !near(prog.Idle, 0.2) || !near(prog.Exec, 0.3) || !near(prog.ProcTime, 0.6) || prog.Entries != 1 {
		t.Errorf("program %+v: user productive 0.26 µs, idle 0.2 µs, exec 0.3 µs", prog)
	}
	if !near(lp.OUPT, 0.26) || !near(lp.Idle, 0.1) {
		t.Errorf("loop %+v: includes own's 0.26 µs and its 0.1 µs idle", lp)
	}
	if !near(prog.Efficiency(), 0.26/0.6) {
		t.Errorf("efficiency %v", prog.Efficiency())
	}
	var b trace.Buf
	Records(&b, sums, 2, 1, 3)
	var txt bytes.Buffer
	Print(&txt, sums, 2)
	if !strings.Contains(txt.String(), `interval 2 "own" level 2: 1 entries, 2 processors`) || len(b.B) == 0 {
		t.Errorf("text %q, %d bytes of records", txt.String(), len(b.B))
	}
}
