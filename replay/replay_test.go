package replay

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// recorder is a Handler that writes what it is told, one line per call.
type recorder struct {
	lines   []string
	open    map[*Interval]bool
	befores int
}

func (r *recorder) Before(*Event) { r.befores++ }

func name(iv *Interval) string {
	switch iv.Kind {
	case KindRegion:
		return fmt.Sprintf("region %d.%d type %d", iv.Sub, iv.Dir, iv.Code)
	case KindMeasure:
		return fmt.Sprintf("measure %s@%d", iv.Name, iv.Level)
	case KindHold:
		return fmt.Sprintf("hold %v %d.%d", iv.Wait, iv.Sub, iv.Dir)
	}
	return fmt.Sprintf("wait %v %d.%d", iv.Wait, iv.Sub, iv.Dir)
}

func (r *recorder) Open(iv *Interval, e *Event) {
	r.open[iv] = true
	r.lines = append(r.lines, fmt.Sprintf("P%d open %s at %v depth %d", iv.Proc, name(iv), iv.Clock0, iv.Depth))
}

func (r *recorder) Close(iv *Interval, e *Event) {
	if !r.open[iv] {
		r.lines = append(r.lines, "closed twice or never opened: "+name(iv))
	}
	delete(r.open, iv)
	how := ""
	if iv.Unclosed {
		how = " unclosed"
		if e == nil {
			how += " at the end"
		}
	}
	r.lines = append(r.lines, fmt.Sprintf("P%d close %s at %v%s", iv.Proc, name(iv), iv.Clock1, how))
}

func (r *recorder) Instant(e *Event, seq int) {
	s := fmt.Sprintf("P%d instant %s", e.Proc, e.Rec.Desc.Name)
	if Unmatched(e) {
		s += " unmatched"
	}
	r.lines = append(r.lines, s)
}

// replayed replays a synthetic trace in the causally consistent order and
// returns the lines of processor p (all with p < 0).
func replayed(t *testing.T, s *tracetest.Synth, prog *progdb.Program, p int) []string {
	t.Helper()
	data := s.MustEncode(t, trace.Binary, prog)
	rec := &recorder{open: map[*Interval]bool{}}
	rp := New(prog, rec)
	st, err := OrderFile(bytes.NewReader(data), int64(len(data)), "synthetic", OrderOptions{Prog: prog, Records: true}, func(e *Event) error {
		rp.Add(e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rp.Finish()
	if len(rec.open) != 0 {
		t.Errorf("%d intervals never closed", len(rec.open))
	}
	if int64(rec.befores) > st.Records {
		t.Errorf("%d Before calls for %d records", rec.befores, st.Records)
	}
	var out []string
	for _, l := range rec.lines {
		if p < 0 || strings.HasPrefix(l, fmt.Sprintf("P%d ", p)) {
			out = append(out, l)
		}
	}
	return out
}

// TestReplaySync: every kind of interval, in the order the processor went
// through them: an atomic update's lock wait holds nothing afterwards, the
// barriers of replicated, psection and pdo are implicit, the explicit one
// is not.
func TestReplaySync(t *testing.T) {
	got := strings.Join(replayed(t, tracetest.Sync2(), tracetest.Prog(), 0), "\n")
	want := `P0 open region 1.0 type 0 at 0 depth 0
P0 open region 1.1 type 7 at 1 depth 1
P0 open wait lock 1.3 at 2 depth 2
P0 close wait lock 1.3 at 3
P0 open hold lock 1.3 at 3 depth 2
P0 close hold lock 1.3 at 5
P0 open wait critical 1.4 at 6.5 depth 2
P0 close wait critical 1.4 at 7
P0 open hold critical 1.4 at 7 depth 2
P0 close hold critical 1.4 at 8
P0 instant barrier-checkin
P0 open wait split barrier 1.6 at 10.5 depth 2
P0 close wait split barrier 1.6 at 12
P0 open wait lock 1.7 at 13 depth 2
P0 close wait lock 1.7 at 13.2
P0 close region 1.1 type 7 at 14
P0 open region 1.8 type 5 at 15 depth 1
P0 open wait implicit barrier 1.8 at 15.5 depth 2
P0 close wait implicit barrier 1.8 at 16.2
P0 close region 1.8 type 5 at 16.3
P0 open region 1.9 type 2 at 17 depth 1
P0 instant aps-info
P0 open region 1.10 type 3 at 17.2 depth 2
P0 close region 1.10 type 3 at 18
P0 open wait implicit barrier 1.9 at 18.1 depth 2
P0 close wait implicit barrier 1.9 at 19.3
P0 close region 1.9 type 2 at 19.4
P0 open region 1.11 type 4 at 20 depth 1
P0 open region 2.0 type 1 at 20.5 depth 2
P0 close region 2.0 type 1 at 22
P0 open wait implicit barrier 1.11 at 22.1 depth 2
P0 close wait implicit barrier 1.11 at 23
P0 close region 1.11 type 4 at 23.1
P0 open wait barrier 1.2 at 24 depth 1
P0 close wait barrier 1.2 at 25
P0 close region 1.0 type 0 at 26`
	if got != want {
		t.Errorf("processor 0:\n%s\nwant\n%s", got, want)
	}
}

// TestReplayWithoutProgram: without program information the open region of
// the same directive still makes a barrier implicit, and an atomic update
// cannot be told from a lock: its grant opens a hold that nothing releases,
// closed with the enclosing region.
func TestReplayWithoutProgram(t *testing.T) {
	lines := replayed(t, tracetest.Sync2(), nil, 1)
	joined := strings.Join(lines, "\n")
	for _, want := range []string{
		"P1 open wait implicit barrier 1.8 at 16 depth 2",
		"P1 open wait implicit barrier 1.11 at 22.6 depth 2",
		"P1 open wait barrier 1.2 at 24.5 depth 1",
		"P1 open hold lock 1.7 at 13.7 depth 2",
		"P1 close hold lock 1.7 at 14.5 unclosed",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %q in\n%s", want, joined)
		}
	}
}

// TestReplayMeasured: measured intervals nest with the regions: one still
// open when its region ends ends there, unclosed; a finish without a start
// is an unmatched instant; the records written after the run are
// instants without a processor's time.
func TestReplayMeasured(t *testing.T) {
	got := strings.Join(replayed(t, tracetest.Measured(), tracetest.Prog(), 1), "\n")
	want := `P1 open region 1.0 type 0 at 0.5 depth 0
P1 open region 1.11 type 4 at 5.5 depth 1
P1 open measure row@1 at 6.5 depth 2
P1 close measure row@1 at 12
P1 instant measure-finish unmatched
P1 close region 1.11 type 4 at 14.5
P1 open measure tail@1 at 15 depth 1
P1 close measure tail@1 at 16 unclosed
P1 close region 1.0 type 0 at 16`
	if got != want {
		t.Errorf("processor 1:\n%s\nwant\n%s", got, want)
	}
	all := replayed(t, tracetest.Measured(), tracetest.Prog(), -1)
	n := 0
	for _, l := range all {
		if strings.Contains(l, "stat-") || strings.Contains(l, "trace-end") {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d records after the run, want 4 (stat-interval, 2 stat-group, trace-end)", n)
	}
}

// TestReplayUnclosed: a region stop closes the regions and waits opened
// inside it; the end of the records closes the rest.
func TestReplayUnclosed(t *testing.T) {
	s := tracetest.New(1)
	s.Start(0, 0, 1, 0, trace.RegionProgram)
	s.Start(0, 1, 1, 1, trace.RegionUser)
	s.Sync(0, 2, trace.TagWaitBarrierStart, 1, 2)
	s.Stop(0, 3, 1, 1, trace.RegionUser)         // closes the wait too
	s.Sync(0, 4, trace.TagWaitBarrierStop, 1, 2) // nothing to close
	s.Stop(0, 5, 1, 9, trace.RegionUser)         // no such region
	s.Start(0, 6, 2, 0, trace.RegionSubroutine)  // never stopped
	got := strings.Join(replayed(t, s, tracetest.Prog(), 0), "\n")
	want := `P0 open region 1.0 type 0 at 0 depth 0
P0 open region 1.1 type 7 at 1 depth 1
P0 open wait barrier 1.2 at 2 depth 2
P0 close wait barrier 1.2 at 3 unclosed
P0 close region 1.1 type 7 at 3
P0 instant wait-barrier-stop unmatched
P0 instant trace-region-stop unmatched
P0 open region 2.0 type 1 at 6 depth 1
P0 close region 2.0 type 1 at 6 unclosed at the end
P0 close region 1.0 type 0 at 6 unclosed at the end`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
