package rtlib

import "github.com/svmc/svmc/rtlib/internal/svm"

// segment returns the segment of a shared variable's storage, making it on
// first use (fresh). Segments are made under the run's lock; the access
// checks that will read the space come later (issue 15).
func (r *run) segment(st Storage) (g *svm.Segment, fresh bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if g := r.segs[st]; g != nil {
		return g, false
	}
	g, err := r.svm.AddSegment(st.Addr, st.Size, r.pageSize)
	if err != nil {
		return nil, false // the page size was checked when the run started
	}
	if r.segs == nil {
		r.segs = map[Storage]*svm.Segment{}
	}
	r.segs[st] = g
	return g, true
}
