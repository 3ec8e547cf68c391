package trace

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
)

// AttrRankLocalSync is the stream attribute of a merged trace whose
// ranks took no global lock: its critical sections and locks each ordered
// one rank's processors only (rtlib keeps them a rank's own where no
// shared storage is exchanged), so a hold on one rank does not follow a
// release on another. Its value is the number of processors per rank.
const AttrRankLocalSync = "svmc rank-local sync"

// MergeRanks writes one trace of a run whose processors were the ranks of
// an MPI job from the ranks' own traces, srcs[k] being rank k's (each rank
// ran every processor and did processor k's work; see rtlib's ranks.go).
// It keeps, from rank k's trace, the records of rank k's processors and of
// the goroutine lanes they started (numbered anew after the processors,
// rank by rank), and from rank 0's the records of the run as a whole and
// the leaders' template-dist records (written by a leader with each
// owner's node id); rank k's clocks are moved onto rank 0's by its rank-info record's
// shift. Each source is read twice (its rank-info comes last) and no
// record is held: the output is rank 0's part, then rank 1's, ..., then
// trace-end, rank 0's unless another rank ended in error first (a rank
// stopped by mpirun ends with SIGTERM). Tools order the records
// themselves; the merged trace still needs the consistent order where the
// shifts' error bounds put records before their causes. It is in rank
// 0's format.
func MergeRanks(dst io.Writer, srcs []io.ReadSeeker) error {
	return MergeRanksPartial(dst, srcs, nil)
}

// rankPart is what MergeRanks knows of a rank's trace.
type rankPart struct {
	shift float64
	// drift: the shift's change per µs of this rank's clock, from
	// the estimate at the run's normal end (0 without one).
	drift   float64
	perRank int         // rank k runs processors k·perRank, ...
	global  int         // global locks the rank's processors took
	owners  map[int]int // lane node → the processor that started its goroutine
	lanes   map[int]int // lane node → merged node, for the lanes of this rank's processors
	end     *Record
}

// shiftAt is what moves a clock t of the rank onto rank 0's: the shift at
// the start, drifting linearly to the one at the end.
func (ri rankPart) shiftAt(t float64) float64 { return ri.shift + ri.drift*t }

// MergeRanksPartial is MergeRanks where the traces of the ranks with
// partial[k] set are what a rank that was killed had written (its
// .partial file: records up to its last flush, perhaps a cut record, no
// rank-info or trace-end): their records are kept up to the cut, on their
// own clock (the shift is in the rank-info the rank never wrote).
func MergeRanksPartial(dst io.Writer, srcs []io.ReadSeeker, partial []bool) error {
	n := len(srcs)
	cut := func(k int, err error) bool { return err == io.EOF || k < len(partial) && partial[k] }
	infos := make([]rankPart, n)
	procs, next := -1, 0 // the job's processors; the next merged lane node
	for k, src := range srcs {
		rd, err := NewReader(src)
		if err != nil {
			return fmt.Errorf("rank %d: %v", k, err)
		}
		ri := rankPart{owners: map[int]int{}, lanes: map[int]int{}}
		found := false
		for {
			rec, err := rd.Next()
			if err != nil && cut(k, err) {
				break
			}
			if err != nil {
				return fmt.Errorf("rank %d: %v", k, err)
			}
			switch rec.Desc.Tag {
			case TagRankInfo:
				if rec.Int("rank") != k || rec.Int("ranks") != n {
					return fmt.Errorf("trace %d of %d is rank %d's of %d", k, n, rec.Int("rank"), rec.Int("ranks"))
				}
				ri.shift, ri.perRank, found = rec.Double("shift microseconds"), max(rec.Int("processors per rank"), 1), true
				ri.global = rec.Int("global locks taken")
				if v, at := rec.Value("end error microseconds"), rec.Clock(); v != nil && v.Double >= 0 && at > 0 {
					ri.drift = (rec.Double("end shift microseconds") - ri.shift) / at
				}
			case TagTraceEnd:
				ri.end = rec
			case TagGoroutineStart:
				if _, ok := ri.owners[rec.Node()]; !ok { // a lane keeps its owner
					ri.owners[rec.Node()] = rec.Int("processor")
				}
			}
		}
		if !found && k < len(partial) && partial[k] {
			infos[k] = ri // its processors per rank: the others'
			continue
		}
		if !found {
			return fmt.Errorf("rank %d's trace has no rank-info record: not a trace of a rank of an MPI job", k)
		}
		if procs >= 0 && ri.perRank*n != procs {
			return fmt.Errorf("rank %d ran %d processors, rank 0 %d", k, ri.perRank, procs/n)
		}
		procs = ri.perRank * n
		infos[k] = ri
	}
	if procs < 0 {
		return fmt.Errorf("no rank's trace is complete")
	}
	for k := range infos {
		if infos[k].perRank == 0 { // a partial trace
			infos[k].perRank = procs / n
		}
	}
	// The lanes of rank k's processors, numbered after the job's processors.
	next = procs
	for k, ri := range infos {
		for _, node := range slices.Sorted(maps.Keys(ri.owners)) { // in node order: a stable numbering
			if owner := ri.owners[node]; node >= procs && owner < procs && owner/ri.perRank == k {
				ri.lanes[node] = next
				next++
			}
		}
	}
	// Every rank complete and none took a global lock: the holds of
	// critical sections and locks were each rank's own.
	local := true
	for k, ri := range infos {
		local = local && !(k < len(partial) && partial[k]) && ri.global == 0
	}
	end, endShift := infos[0].end, 0.0
	for _, ri := range infos {
		if e := ri.end; e != nil && e.Int("status") != EndNormal && e.Int("status") != EndTerminate {
			end, endShift = e, ri.shiftAt(e.Clock())
			break
		}
	}
	var w *Writer
	last := 0.0
	for k, src := range srcs {
		if _, err := src.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("rank %d: %v", k, err)
		}
		rd, err := NewReader(src)
		if err != nil {
			return fmt.Errorf("rank %d: %v", k, err)
		}
		if k == 0 {
			attrs := rd.Attrs()
			if local {
				attrs = append(slices.Clip(attrs), Attr{Key: AttrRankLocalSync, Value: strconv.Itoa(procs / n)})
			}
			if w, err = newWriter(dst, rd.Format(), attrs, nil); err != nil {
				return err
			}
		}
		ri := infos[k]
		for {
			rec, err := rd.Next()
			if err != nil && cut(k, err) {
				break
			}
			if err != nil {
				w.Close()
				return fmt.Errorf("rank %d: %v", k, err)
			}
			ni, ci := rec.Desc.nodeIndex(), rec.Desc.clockIndex()
			node := rec.Node()
			lane, isLane := ri.lanes[node]
			switch {
			case rec.Desc.Tag == TagTraceEnd:
				continue
			case rec.Desc.Tag == TagTemplateDist:
				// The leader writes one per owner, with the owner's node
				// id, into its own stream: rank 0's are the job's.
				if k != 0 {
					continue
				}
			case ni >= 0 && node < procs && node/ri.perRank == k, isLane, k == 0 && ni < 0:
			default:
				continue // another rank's part, or a processor with no work here
			}
			if isLane {
				rec.Values[ni].Int = lane
			}
			if ci >= 0 {
				rec.Values[ci].Double += ri.shiftAt(rec.Values[ci].Double)
				last = max(last, rec.Values[ci].Double)
			}
			if err := w.WriteRecord(rec); err != nil {
				w.Close()
				return err
			}
		}
	}
	if end != nil {
		ci := end.Desc.clockIndex()
		end.Values[ci].Double = max(last, end.Values[ci].Double+endShift)
		end.Values[end.Desc.nodeIndex()].Int = 0
		if err := w.WriteRecord(end); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}
