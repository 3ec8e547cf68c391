package trace

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// MergeRanks writes one trace of a run whose processors were the ranks of
// an MPI job from the ranks' own traces, srcs[k] being rank k's (each rank
// ran every processor and did processor k's work; see rtlib's ranks.go).
// It keeps, from rank k's trace, the records of processor k and of the
// goroutine lanes processor k started (numbered anew after the
// processors), and from rank 0's the records of the run as a whole; rank
// k's clocks are moved onto rank 0's by its rank-info record's shift. The
// records are written in clock order; trace-end comes last, rank 0's unless
// another rank ended in error first (a rank stopped by mpirun ends with
// SIGTERM). The merged trace is in rank 0's format; it still needs the
// consistent order where the shifts' error bounds put records before their
// causes.
func MergeRanks(dst io.Writer, srcs []io.Reader) error {
	n := len(srcs)
	type kept struct {
		rec  *Record
		rank int
	}
	var (
		recs   []kept
		ends   = make([]*Record, n)
		attrs  []Attr
		format Format
		descs  []*Descriptor
		lanes  = map[[2]int]int{} // (rank, lane node) → merged node
	)
	for k, src := range srcs {
		rd, err := NewReader(src)
		if err != nil {
			return fmt.Errorf("rank %d: %v", k, err)
		}
		if k == 0 {
			attrs, format = rd.Attrs(), rd.Format()
		}
		var mine []*Record
		shift, found := 0.0, k == 0
		owner := map[int]int{} // lane node → the processor that started it
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("rank %d: %v", k, err)
			}
			node := rec.Node()
			switch rec.Desc.Tag {
			case TagRankInfo:
				if rec.Int("rank") != k || rec.Int("ranks") != n {
					return fmt.Errorf("trace %d of %d is rank %d's of %d", k, n, rec.Int("rank"), rec.Int("ranks"))
				}
				shift, found = rec.Double("shift microseconds"), true
			case TagTraceEnd:
				ends[k] = rec
				continue
			case TagGoroutineStart:
				owner[node] = rec.Int("processor")
			}
			switch {
			case node == k:
			case node >= n && owner[node] == k:
				if _, ok := lanes[[2]int{k, node}]; !ok {
					lanes[[2]int{k, node}] = n + len(lanes)
				}
			case k == 0 && rec.Desc.nodeIndex() < 0:
			case k == 0 && node == 0:
			default:
				continue // another rank's part, or a processor with no work here
			}
			mine = append(mine, rec)
		}
		if k == 0 {
			descs = rd.Descriptors()
		}
		if !found {
			return fmt.Errorf("rank %d's trace has no rank-info record: not a trace of a rank of an MPI job", k)
		}
		for _, rec := range mine {
			if ci := rec.Desc.clockIndex(); ci >= 0 {
				rec.Values[ci].Double += shift
			}
			if ni := rec.Desc.nodeIndex(); ni >= 0 && rec.Values[ni].Int >= n {
				rec.Values[ni].Int = lanes[[2]int{k, rec.Values[ni].Int}]
			}
			recs = append(recs, kept{rec, k})
		}
	}
	slices.SortStableFunc(recs, func(a, b kept) int { return cmp.Compare(a.rec.Clock(), b.rec.Clock()) })
	end := ends[0]
	for _, e := range ends {
		if e != nil && e.Int("status") != EndNormal && e.Int("status") != EndTerminate {
			end = e
			break
		}
	}
	w, err := newWriter(dst, format, attrs, descs)
	if err != nil {
		return err
	}
	for _, kr := range recs {
		if err := w.WriteRecord(kr.rec); err != nil {
			w.Close()
			return err
		}
	}
	if end != nil {
		if len(recs) > 0 {
			end.Values[end.Desc.clockIndex()].Double = max(end.Clock(), recs[len(recs)-1].rec.Clock())
		}
		end.Values[end.Desc.nodeIndex()].Int = 0
		if err := w.WriteRecord(end); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}
