package trace

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// rankTrace is a rank's trace of a two-processor run as rtlib writes one
// under MPI: both processors' records, lanes, rank-info and trace-end.
func rankTrace(t *testing.T, rank int, shift float64, build func(b *Buf), status int, msg string) io.ReadSeeker {
	return rankTraceK(t, rank, 1, shift, build, status, msg)
}

// rankTraceK is rankTrace for ranks of perRank processors each.
func rankTraceK(t *testing.T, rank, perRank int, shift float64, build func(b *Buf), status int, msg string) io.ReadSeeker {
	t.Helper()
	return rankTraceEnd(t, rank, perRank, shift, 0, -1, build, status, msg)
}

// rankTraceEnd is rankTraceK whose rank-info (at clock 50) has the shift
// measured at the end too (endErr ≥ 0; −1: not measured).
func rankTraceEnd(t *testing.T, rank, perRank int, shift, endShift, endErr float64, build func(b *Buf), status int, msg string) io.ReadSeeker {
	t.Helper()
	return rankTraceLocks(t, rank, perRank, shift, endShift, endErr, 0, build, status, msg)
}

// rankTraceLocks is rankTraceEnd whose rank took locks global locks.
func rankTraceLocks(t *testing.T, rank, perRank int, shift, endShift, endErr float64, locks int, build func(b *Buf), status int, msg string) io.ReadSeeker {
	t.Helper()
	var b Buf
	build(&b)
	b.Begin(TagRankInfo, rank*perRank, 50)
	b.Int(rank)
	b.Int(2)
	b.Int(perRank)
	b.Double(shift)
	b.Double(0.5)
	b.Int(3)
	b.Double(1024)
	b.Int(5)
	b.Double(40)
	b.Double(endShift)
	b.Double(endErr)
	b.Int(locks)
	b.Double(0)
	b.Int(0)
	b.Double(0)
	b.Int(0)
	b.Int(0)
	b.Int(0)
	b.End()
	b.Begin(TagTraceEnd, 0, 50)
	b.Int(status)
	b.Chars(msg)
	b.Ints(nil)
	b.Int(0)
	b.End()
	var out bytes.Buffer
	w, err := NewWriter(&out, Binary, []Attr{{Key: "processors", Value: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBuf(&b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(out.Bytes())
}

func region(b *Buf, tag Tag, node int, clock float64) {
	b.Begin(tag, node, clock)
	b.Int(1)
	b.Int(0)
	b.Int(1)
	b.End()
}

func laneStart(b *Buf, node int, clock float64, proc int) {
	b.Begin(TagGoroutineStart, node, clock)
	b.Int(proc)
	b.Int(7)
	b.Chars("main.go:3:2")
	b.End()
}

// TestMergeRanks: processor k's records come from rank k with rank k's
// shift, the lanes processor k started too (renumbered after the
// processors, in order), the copies of the others are dropped, rank by
// rank, and trace-end, last, is the failing rank's.
func TestMergeRanks(t *testing.T) {
	r0 := rankTrace(t, 0, 0, func(b *Buf) {
		region(b, TagTraceRegionStart, 0, 10)
		region(b, TagTraceRegionStart, 1, 11) // processor 1's copy: its work is on rank 1
		laneStart(b, 2, 12, 0)
		region(b, TagTraceRegionStop, 0, 40)
	}, EndTerminate, "interrupted (SIGTERM)")
	r1 := rankTrace(t, 1, 100, func(b *Buf) {
		region(b, TagTraceRegionStart, 0, 1) // processor 0's copy
		laneStart(b, 2, 2, 0)                // a lane of processor 0's copy
		region(b, TagTraceRegionStart, 1, 3)
		laneStart(b, 3, 4, 1)
		region(b, TagTraceRegionStop, 1, 5)
	}, EndPanic, "processor 1 panicked")
	var out bytes.Buffer
	if err := MergeRanks(&out, []io.ReadSeeker{r0, r1}); err != nil {
		t.Fatal(err)
	}
	var d strings.Builder
	if err := Dump(&d, &out); err != nil {
		t.Fatal(err)
	}
	want := `node 0  t=10.000us  trace-region-start  subprogram number=1 directive number=0 trace region type=1
node 2  t=12.000us  goroutine-start  processor=0 goroutine number=7 started at=[11]"main.go:3:2"
node 0  t=40.000us  trace-region-stop  subprogram number=1 directive number=0 trace region type=1
node 0  t=50.000us  rank-info  rank=0 ranks=2 processors per rank=1 shift microseconds=0 error microseconds=0.5 exchanges=3 bytes sent=1024 messages sent=5 message bytes sent=40 end shift microseconds=0 end error microseconds=-1 global locks taken=0 bytes published=0 pages fetched=0 page bytes received=0 pages served=0 stale pages synchronised=0 pages prefetched=0
node 1  t=103.000us  trace-region-start  subprogram number=1 directive number=0 trace region type=1
node 3  t=104.000us  goroutine-start  processor=1 goroutine number=7 started at=[11]"main.go:3:2"
node 1  t=105.000us  trace-region-stop  subprogram number=1 directive number=0 trace region type=1
node 1  t=150.000us  rank-info  rank=1 ranks=2 processors per rank=1 shift microseconds=100 error microseconds=0.5 exchanges=3 bytes sent=1024 messages sent=5 message bytes sent=40 end shift microseconds=0 end error microseconds=-1 global locks taken=0 bytes published=0 pages fetched=0 page bytes received=0 pages served=0 stale pages synchronised=0 pages prefetched=0
node 0  t=150.000us  trace-end  status=2 message=[20]"processor 1 panicked" processors not stopped=[0]{} lost records=0
`
	if d.String() != want {
		t.Errorf("merged:\n%s\nwant\n%s", d.String(), want)
	}
	if err := MergeRanks(io.Discard, []io.ReadSeeker{rankTrace(t, 1, 0, func(*Buf) {}, 0, ""), rankTrace(t, 1, 0, func(*Buf) {}, 0, "")}); err == nil || !strings.Contains(err.Error(), "trace 0 of 2 is rank 1's") {
		t.Errorf("two traces of rank 1: %v", err)
	}
}

// TestMergeRanksPerRank: with two processors per rank, rank k keeps
// processors 2k and 2k+1 and the lanes they started; the leaders'
// template-dist records (one per owner, the owner's node id) come from
// rank 0 only.
func TestMergeRanksPerRank(t *testing.T) {
	r0 := rankTraceK(t, 0, 2, 0, func(b *Buf) {
		region(b, TagTraceRegionStart, 0, 10)
		region(b, TagTraceRegionStart, 1, 11)
		region(b, TagTraceRegionStart, 2, 12) // rank 1's processor
		laneStart(b, 4, 13, 1)                // processor 1's goroutine
		laneStart(b, 5, 14, 3)                // a copy of processor 3's
		templateDist(b, 3, 15)                // the leader's, for owner 3
	}, EndNormal, "")
	r1 := rankTraceK(t, 1, 2, 100, func(b *Buf) {
		region(b, TagTraceRegionStart, 1, 1) // rank 0's processor
		region(b, TagTraceRegionStart, 2, 2)
		region(b, TagTraceRegionStart, 3, 3)
		laneStart(b, 5, 4, 3)
		templateDist(b, 2, 5) // a copy of the leader's
	}, EndNormal, "")
	var out bytes.Buffer
	if err := MergeRanks(&out, []io.ReadSeeker{r0, r1}); err != nil {
		t.Fatal(err)
	}
	var got []string
	rd, err := NewReader(&out)
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s@%d/%g", rec.Desc.Name, rec.Node(), rec.Clock()))
	}
	want := "[trace-region-start@0/10 trace-region-start@1/11 goroutine-start@4/13 template-dist@3/15 rank-info@0/50 trace-region-start@2/102 trace-region-start@3/103 goroutine-start@5/104 rank-info@2/150 trace-end@0/150]"
	if fmt.Sprint(got) != want {
		t.Errorf("merged %v\nwant   %s", got, want)
	}
}

func templateDist(b *Buf, owner int, clock float64) {
	b.Begin(TagTemplateDist, owner, clock)
	b.Int(1)
	b.IntRows(2, []int{0, 3})
	b.End()
}

// TestMergeRanksPartial: the trace a killed rank left (no rank-info, no
// trace-end, its last record cut) is merged with what it holds, on its own
// clock; MergeRanks alone refuses it.
func TestMergeRanksPartial(t *testing.T) {
	r0 := rankTrace(t, 0, 0, func(b *Buf) {
		region(b, TagTraceRegionStart, 0, 10)
	}, EndTerminate, "interrupted (SIGTERM)")
	var b Buf
	region(&b, TagTraceRegionStart, 1, 3)
	region(&b, TagTraceRegionStart, 0, 4) // processor 0's copy
	region(&b, TagTraceRegionStop, 1, 5)
	var full bytes.Buffer
	w, err := NewWriter(&full, Binary, []Attr{{Key: "processors", Value: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBuf(&b); err != nil {
		t.Fatal(err)
	}
	w.Flush()                          // killed: the writer never closed the stream (no run index)
	cut := full.Bytes()[:full.Len()-3] // the last record cut by the kill
	var out bytes.Buffer
	if err := MergeRanksPartial(&out, []io.ReadSeeker{r0, bytes.NewReader(cut)}, []bool{false, true}); err != nil {
		t.Fatal(err)
	}
	var d strings.Builder
	if err := Dump(&d, &out); err != nil {
		t.Fatal(err)
	}
	want := `node 0  t=10.000us  trace-region-start  subprogram number=1 directive number=0 trace region type=1
node 0  t=50.000us  rank-info  rank=0 ranks=2 processors per rank=1 shift microseconds=0 error microseconds=0.5 exchanges=3 bytes sent=1024 messages sent=5 message bytes sent=40 end shift microseconds=0 end error microseconds=-1 global locks taken=0 bytes published=0 pages fetched=0 page bytes received=0 pages served=0 stale pages synchronised=0 pages prefetched=0
node 1  t=3.000us  trace-region-start  subprogram number=1 directive number=0 trace region type=1
node 0  t=50.000us  trace-end  status=5 message=[21]"interrupted (SIGTERM)" processors not stopped=[0]{} lost records=0
`
	if d.String() != want {
		t.Errorf("merged:\n%s\nwant\n%s", d.String(), want)
	}
	r0.Seek(0, io.SeekStart)
	if err := MergeRanks(io.Discard, []io.ReadSeeker{r0, bytes.NewReader(cut)}); err == nil {
		t.Error("MergeRanks took a cut trace")
	}
}

// TestMergeRanksDrift: with the shift measured at the start and again at
// the end (rank-info's clock), a rank's clocks move onto rank 0's by the
// shift drifting linearly between the two; without the end's estimate by
// the start's alone.
func TestMergeRanksDrift(t *testing.T) {
	build := func(rank int) func(b *Buf) {
		return func(b *Buf) {
			region(b, TagTraceRegionStart, rank, 0)
			region(b, TagTraceRegionStop, rank, 25)
		}
	}
	for _, c := range []struct {
		endErr float64
		want   string // rank 1's records' clocks
	}{
		{0.5, "100.000 135.000"}, // the shift 100 at 0, 120 at 50: 110 at 25
		{-1, "100.000 125.000"},  // no end estimate: 100 throughout
	} {
		var out bytes.Buffer
		srcs := []io.ReadSeeker{
			rankTraceEnd(t, 0, 1, 0, 0, 0.5, build(0), EndNormal, ""),
			rankTraceEnd(t, 1, 1, 100, 120, c.endErr, build(1), EndNormal, ""),
		}
		if err := MergeRanks(&out, srcs); err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.Node() == 1 && rec.Desc.Tag != TagRankInfo {
				got = append(got, fmt.Sprintf("%.3f", rec.Clock()))
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("end error %v: rank 1's clocks %v, want %s", c.endErr, got, c.want)
		}
	}
}

// TestMergeRanksLocalSync: a job whose ranks took no global lock gets the
// attribute that tells the replay its critical sections and locks ordered
// each rank's processors only; one global lock taken, or a rank's trace
// cut, and it does not.
func TestMergeRanksLocalSync(t *testing.T) {
	for _, c := range []struct {
		locks   int
		partial bool
		want    string
	}{{0, false, "1"}, {3, false, ""}, {0, true, ""}} {
		r0 := rankTraceLocks(t, 0, 1, 0, 0, -1, 0, func(*Buf) {}, EndNormal, "")
		r1 := rankTraceLocks(t, 1, 1, 0, 0, -1, c.locks, func(*Buf) {}, EndNormal, "")
		var out bytes.Buffer
		if err := MergeRanksPartial(&out, []io.ReadSeeker{r0, r1}, []bool{false, c.partial}); err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(&out)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, a := range rd.Attrs() {
			if a.Key == AttrRankLocalSync {
				got = a.Value
			}
		}
		if got != c.want {
			t.Errorf("%d global locks, partial %v: attribute %q, want %q", c.locks, c.partial, got, c.want)
		}
	}
}
