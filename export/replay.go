package export

import (
	"cmp"
	"slices"

	"github.com/svmc/svmc/view"
)

// Op kinds of Replay.
const (
	OpEnter   = iota // an interval opens
	OpLeave          // it closes
	OpInstant        // an instant
)

// ReplayOp is one step of a processor's history.
type ReplayOp struct {
	Proc  int
	Seq   int // position among the processor's steps
	Op    int
	Index int // into Timeline.Intervals (OpEnter, OpLeave) or Timeline.Instants
}

// Replay lists the openings, closings and instants of every processor in
// the order the processor went through them (processor 0 first). Formats
// with enter/leave events need this order rather than times: an interval
// that opens at the time its predecessor closes must come after the
// predecessor's leave, and a child's leave before its parent's.
func Replay(tl *view.Timeline) []ReplayOp {
	ops := make([]ReplayOp, 0, 2*len(tl.Intervals)+len(tl.Instants))
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		ops = append(ops, ReplayOp{iv.Proc, iv.Seq0, OpEnter, i}, ReplayOp{iv.Proc, iv.Seq1, OpLeave, i})
	}
	for i := range tl.Instants {
		in := &tl.Instants[i]
		ops = append(ops, ReplayOp{in.Proc, in.Seq, OpInstant, i})
	}
	slices.SortFunc(ops, func(a, b ReplayOp) int {
		return cmp.Or(cmp.Compare(a.Proc, b.Proc), cmp.Compare(a.Seq, b.Seq))
	})
	return ops
}
