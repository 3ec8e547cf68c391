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
	sv := p0.Call(MapPL, 2)
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
	if e := acc0.M[MapPL][MapPL]; !near(e.Calls, 0.5) || !near(e.Prod, 40) || !near(e.Lost, 40+40) {
		t.Errorf("p0 pdo %+v, want calls 0.5, productive 40 (80/2), lost 40 + 40 waiting", e)
	}
	if !near(acc1.Idle, 300) || !near(acc1.M[Sync][Sync].Calls, 1) {
		t.Errorf("p1 idle %v, sync calls %v; want 300 ns idle (before and after the call of no time) and one call", acc1.Idle, acc1.M[Sync][Sync].Calls)
	}
	var nilProc *Proc
	nilProc.Restore(nilProc.Call(MapPL, 2)) // statistics off: nothing happens
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
	// p0 stopped at 260 and p1 charged last at 200 of the run's 300: they
	// idled in the program until its end, so that its processor time is
	// all accounted for.
	if !near(prog.OUPT, 0.26) || !near(prog.Idle, 0.34) || !near(prog.Exec, 0.3) || !near(prog.ProcTime, 0.6) || prog.Entries != 1 ||
		!near(prog.OUPT+prog.OULT+prog.SPT+prog.SLT+prog.Idle, prog.ProcTime) {
		t.Errorf("program %+v: user productive 0.26 µs, idle 0.34 µs, exec 0.3 µs", prog)
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

// TestUserGrpRowAndSums: the UserGrp row counts the calls the user program
// made directly, per processor; IM[i][i] counts them with the (n-1)/n
// rule; a call nested in another group's function is charged in that
// group's row; the by-group sums are the matrix's rows and columns, and
// the identities of §11.1.3 hold (UPT = OUPT + SPT, the rows sum to SPT
// and SLT, the columns to the same totals).
func TestUserGrpRowAndSums(t *testing.T) {
	c := &clock{}
	r := NewRun(2, 0, c.now)
	p0, p1 := r.Proc(0), r.Proc(1)
	p1.Restore(p1.User()) // p1 runs user code from 0
	c.t = 100
	for _, p := range []*Proc{p0, p1} { // both call a PDO (k = 2) at 100
		sv := p.Call(MapPL, 2)
		c.t += 50
		in := p.Switch(DoPL) // fetching a portion, nested in the loop
		c.t += 10
		p.Restore(in)
		p.Restore(sv)
	}
	sv := p0.Call(Distr, 1) // p0 alone distributes
	c.t += 40
	p0.Restore(sv)
	c.t += 100
	p0.Stop()
	p1.Stop()
	su := r.Summarize([]bool{true, true}, float64(c.t))[0]
	if !near(su.M[User][MapPL].Calls, 1) || !near(su.M[User][Distr].Calls, 0.5) || !near(su.M[User][DoPL].Calls, 0) {
		t.Errorf("UserGrp row: MapPL %v (want 1 per processor), Distr %v (0.5), DoPL %v (0: not called directly)",
			su.M[User][MapPL].Calls, su.M[User][Distr].Calls, su.M[User][DoPL].Calls)
	}
	if !near(su.M[MapPL][MapPL].Calls, 1) || !near(su.M[MapPL][DoPL].Calls, 2) {
		t.Errorf("IM[MapPL][MapPL] calls %v (want 2 × 1/2), IM[MapPL][DoPL] %v (want 2)", su.M[MapPL][MapPL].Calls, su.M[MapPL][DoPL].Calls)
	}
	if !near(su.Calls, 1.5) || !near(su.Direct[MapPL].Calls, 1) {
		t.Errorf("calls of the user program %v, want 1.5 per processor", su.Calls)
	}
	var rows, cols Elem
	for g := range NumGroups {
		if g != int(User) {
			rows = addElem(rows, su.Direct[g])
			cols = addElem(cols, su.Own[g])
		}
	}
	if !near(rows.Prod, su.SPT) || !near(rows.Lost, su.SLT) || !near(cols.Prod, su.SPT) || !near(cols.Lost, su.SLT) {
		t.Errorf("rows %+v, columns %+v, SPT %v, SLT %v: the sums must agree", rows, cols, su.SPT, su.SLT)
	}
	if !near(su.Productive()+su.Lost()+su.Idle, su.ProcTime) {
		t.Errorf("UPT %v + ULT %v + idle %v != processor time %v", su.Productive(), su.Lost(), su.Idle, su.ProcTime)
	}
	if !near(su.Own[DoPL].Prod+su.Own[DoPL].Lost, 0.02) {
		t.Errorf("DoPL's own time %+v, want 20 ns", su.Own[DoPL])
	}
}

// TestTaskInter: TaskInter takes the whole run uncorrected (a call of k
// processors counts once per processor, its time whole), and each
// TimeExpendPrint mode prints its part.
func TestTaskInter(t *testing.T) {
	c := &clock{}
	r := NewRun(2, 0, c.now)
	r.KeepTaskInter()
	p0 := r.Proc(0)
	c.t = 100
	sv := p0.Call(MapPL, 2)
	c.t = 300
	p0.Restore(sv)
	c.t = 400
	p0.Stop()
	r.Proc(1).Stop()
	m, idle := r.TaskInter([]bool{true, true})
	if e := m[MapPL][MapPL]; e.Calls != 1 || e.Prod != 200 || e.Lost != 0 {
		t.Errorf("TaskInter[MapPL][MapPL] %+v, want 1 call, 200 ns productive", e)
	}
	if m[User][User].Prod != 200 || idle != 400 {
		t.Errorf("user %v, idle %v", m[User][User].Prod, idle)
	}
	for mode, want := range map[int]string{
		1: "System Time 1.0 us, Task Time 0.8 us, Function Time 0.2 us",
		2: "sum of columns [MapPLGrp]",
		3: "sum of rows [MapPLGrp]     CallCount          1  ProductTime", // not 2: the UserGrp row is not a second call
		4: "[UserGrp][MapPLGrp]",
		5: "[MapPLGrp][MapPLGrp]",
	} {
		var b bytes.Buffer
		PrintTaskInter(&b, &m, idle, 1000, mode, int(MapPL))
		if !strings.Contains(b.String(), want) {
			t.Errorf("mode %d: %q lacks %q", mode, b.String(), want)
		}
	}
}

// TestBufferBound: with StatBufLength room for two intervals, a third is
// not kept: its time counts in the enclosing one, and Overflow names it.
func TestBufferBound(t *testing.T) {
	r := NewRun(1, 0, (&clock{}).now)
	r.SetBuffer(2 * AccBytes)
	a := r.Child(r.root, "a")
	if b := r.Child(a, "b"); b != a || r.Overflow != "b" {
		t.Errorf("a third interval: got %v, overflow %q; want the enclosing one and \"b\"", b.Name, r.Overflow)
	}
}
