package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// Message-passing analysis: every call's time counts as lost (Lib-DVM's
// MsgPasGrp, seed 000 §11.1.2; the Messages characteristic), and the
// calls are paired into exchanges — a send with the receive that took it
// (the sender and its message id), the members of one collective instance
// (its group and instance number) — to find the wait states Scalasca
// defines:
//
//	late sender     a receive (Recv, Sendrecv, Wait on an Irecv) waits for
//	                a message whose send started later:
//	                min(send start, receive end) − receive start
//	late receiver   a blocking send (Send, Ssend) waits for a receive that
//	                started later: min(receive start, send end) − send start
//	wait at N×N     Allreduce, Allgather, Alltoall, Barrier: each member
//	                waits for the last to enter: min(last entry, own end) − own entry
//	early reduce    Reduce, Gather: the root waits for the first other member
//	late broadcast  Bcast, Scatter: the others wait for the root

// Message wait state kinds.
const (
	LateSender   = "late sender"
	LateReceiver = "late receiver"
	WaitNxN      = "wait at N×N"
	EarlyReduce  = "early reduce"
	LateBcast    = "late broadcast"
)

// MessageStats is the message passing of a run.
type MessageStats struct {
	// Calls are the call sites, by total time.
	Calls []*CallStat `json:"calls"`
	// Matrix is the point-to-point traffic, one entry per sender and
	// receiver that exchanged messages: messages, bytes and the receiving
	// calls' time.
	Matrix []PairStat `json:"matrix"`
	// Waits are the wait states, by total time.
	Waits []*MsgWait `json:"waits"`
	// Unpaired counts completed receives whose send is not in the trace
	// (not traced there) and sends no traced receive took.
	UnpairedRecvs int64 `json:"unpaired_receives,omitempty"`
	UnpairedSends int64 `json:"unpaired_sends,omitempty"`
}

// CallStat is one message-passing call site.
type CallStat struct {
	Call    int       `json:"call"` // program information call number, 0 unknown
	Func    string    `json:"func"`
	Where   string    `json:"where"` // file:line:col
	Sub     int       `json:"sub"`
	Count   int64     `json:"count"`
	Time    float64   `json:"time_us"`
	PerProc []float64 `json:"per_proc_us"`
}

// PairStat is the traffic from one processor to another.
type PairStat struct {
	Src   int     `json:"src"`
	Dst   int     `json:"dst"`
	Count int64   `json:"count"`
	Bytes int64   `json:"bytes"`
	Time  float64 `json:"time_us"`
}

// MsgWait is one wait state at one call site: the waiting call, and the
// call waited for when it is one site (late sender: the send; late
// receiver: the receive).
type MsgWait struct {
	Kind      string    `json:"kind"`
	Call      int       `json:"call"`
	Func      string    `json:"func"`
	Where     string    `json:"where"`
	Sub       int       `json:"sub"`
	Peer      int       `json:"peer_call,omitempty"` // 0: several or unknown
	PeerFunc  string    `json:"peer_func,omitempty"`
	PeerWhere string    `json:"peer_where,omitempty"`
	Count     int64     `json:"count"` // waits longer than nothing
	Time      float64   `json:"time_us"`
	Max       float64   `json:"max_us"`
	PerProc   []float64 `json:"per_proc_us"`
	// Culprit is the processor most often waited for (the late sender,
	// the last to arrive, the root), -1 unknown.
	Culprit int `json:"culprit"`
	// Culprits are every processor waited for, ascending.
	Culprits []int `json:"culprits,omitempty"`
	culprit  map[int]int
	kindOf   int // the waiting call's kind, for its name without program information
}

// msgCall is one call of a processor, kept while it is open, while it is
// a send no receive has taken yet, or while its collective instance is
// incomplete.
type msgCall struct {
	proc        int
	kind, site  int
	sub         int
	t0, t1      float64
	open        bool
	peer, tag   int
	group, id   int
	gsize       int
	bytes       int64
	completions []msgDone // receives completed in the call
}

type msgDone struct {
	src, id int
}

type msgSendKey struct{ src, id int }

type msgWaitKey struct {
	kind       string
	site, peer int
}

// msgBuilder aggregates the calls as the replay goes: a receive is paired
// with its send when it completes (the consistent order puts that after
// the send's start), a collective instance once all its members left it,
// so memory holds what is in flight, not every call of the run.
type msgBuilder struct {
	n        int
	open     map[int]*msgCall // per processor: the call in progress
	sends    map[msgSendKey]*msgCall
	insts    map[[2]int][]*msgCall
	calls    map[[2]int]*CallStat // by site and kind
	matrix   map[[2]int]*PairStat
	waits    map[msgWaitKey]*MsgWait
	peerKind map[int]int // kind of a waited-for site, for its name
	unpaired int64
	seen     bool
}

func (mb *msgBuilder) init() {
	if mb.open == nil {
		mb.open, mb.sends, mb.insts = map[int]*msgCall{}, map[msgSendKey]*msgCall{}, map[[2]int][]*msgCall{}
		mb.calls, mb.matrix, mb.waits, mb.peerKind = map[[2]int]*CallStat{}, map[[2]int]*PairStat{}, map[msgWaitKey]*MsgWait{}, map[int]int{}
	}
}

func (mb *msgBuilder) start(iv *replay.Interval, e *replay.Event) {
	mb.init()
	mb.seen = true
	c := &msgCall{proc: iv.Proc, kind: iv.Code, site: iv.Dir, sub: iv.Sub, t0: iv.Clock0, open: true,
		peer: int(e.M.Peer), tag: int(e.M.Tag), group: int(e.M.Group), id: int(e.M.ID), bytes: e.M.Bytes}
	if e.Rec != nil {
		if i := e.Rec.Desc.Index("group size"); i >= 0 {
			c.gsize = e.Rec.Values[i].Int
		}
	}
	mb.open[iv.Proc] = c
	switch c.kind {
	case trace.CallSend, trace.CallSsend, trace.CallIsend, trace.CallSendrecv:
		if c.id > 0 {
			mb.sends[msgSendKey{c.proc, c.id}] = c
		}
	}
	if trace.IsCollective(c.kind) {
		k := [2]int{c.group, c.id}
		mb.insts[k] = append(mb.insts[k], c)
	}
}

func (mb *msgBuilder) stop(iv *replay.Interval, e *replay.Event) {
	c := mb.open[iv.Proc]
	if c == nil {
		return
	}
	delete(mb.open, iv.Proc)
	c.t1, c.open = iv.Clock1, false
	if e != nil && !iv.Unclosed {
		switch c.kind {
		case trace.CallRecv, trace.CallSendrecv:
			if e.M.Src >= 0 && e.M.MID > 0 {
				c.completions = append(c.completions, msgDone{src: int(e.M.Src), id: int(e.M.MID)})
			}
		}
	}
	mb.closed(c)
}

func (mb *msgBuilder) done(e *replay.Event) {
	c := mb.open[int(e.Proc)]
	if c == nil || e.M.Kind != trace.CallIrecv || e.M.Src < 0 || e.M.MID <= 0 {
		return
	}
	c.completions = append(c.completions, msgDone{src: int(e.M.Src), id: int(e.M.MID)})
}

// closed takes a call that returned: its time, the messages it received,
// its collective instance.
func (mb *msgBuilder) closed(c *msgCall) {
	k := [2]int{c.site, c.kind}
	cs := mb.calls[k]
	if cs == nil {
		cs = &CallStat{Call: c.site, Sub: c.sub}
		mb.calls[k] = cs
	}
	cs.Count++
	d := max(0, c.t1-c.t0)
	cs.Time += d
	for len(cs.PerProc) <= c.proc {
		cs.PerProc = append(cs.PerProc, 0)
	}
	cs.PerProc[c.proc] += d
	for _, done := range c.completions {
		mb.pair(c, done)
	}
	if trace.IsCollective(c.kind) {
		ik := [2]int{c.group, c.id}
		ms := mb.insts[ik]
		if c.gsize > 0 && len(ms) >= c.gsize && !slices.ContainsFunc(ms, func(m *msgCall) bool { return m.open }) {
			mb.instance(ms)
			delete(mb.insts, ik)
		}
	}
}

// pair takes the receive of message done in call c.
func (mb *msgBuilder) pair(c *msgCall, done msgDone) {
	k := msgSendKey{done.src, done.id}
	s := mb.sends[k]
	if s == nil {
		mb.unpaired++
		return
	}
	delete(mb.sends, k)
	pk := [2]int{s.proc, c.proc}
	ps := mb.matrix[pk]
	if ps == nil {
		ps = &PairStat{Src: s.proc, Dst: c.proc}
		mb.matrix[pk] = ps
	}
	ps.Count++
	ps.Bytes += s.bytes
	ps.Time += max(0, c.t1-c.t0) / float64(len(c.completions))
	// Late sender: the receiving call (or the Wait) began before the send.
	if c.kind != trace.CallTest && s.t0 > c.t0 {
		mb.addWait(LateSender, c, s, s.proc, min(s.t0, c.t1)-c.t0)
	}
	// Late receiver: a blocking send waited for a receive that began
	// after it (a send still open waits at least until then).
	if (s.kind == trace.CallSend || s.kind == trace.CallSsend) && c.t0 > s.t0 {
		end := s.t1
		if s.open {
			end = c.t0
		}
		mb.addWait(LateReceiver, s, c, c.proc, min(c.t0, end)-s.t0)
	}
}

func (mb *msgBuilder) addWait(kind string, c, peer *msgCall, culprit int, w float64) {
	if w <= 0 {
		return
	}
	peerSite := 0
	if peer != nil {
		peerSite = peer.site
		mb.peerKind[peer.site] = peer.kind
	}
	k := msgWaitKey{kind, c.site, peerSite}
	mw := mb.waits[k]
	if mw == nil {
		mw = &MsgWait{Kind: kind, Call: c.site, Sub: c.sub, Peer: peerSite, culprit: map[int]int{}, kindOf: c.kind}
		mb.waits[k] = mw
	}
	mw.Count++
	mw.Time += w
	mw.Max = max(mw.Max, w)
	for len(mw.PerProc) <= c.proc {
		mw.PerProc = append(mw.PerProc, 0)
	}
	mw.PerProc[c.proc] += w
	mw.culprit[culprit]++
}

// instance computes the waits of one collective instance.
func (mb *msgBuilder) instance(members []*msgCall) {
	switch members[0].kind {
	case trace.CallAllreduce, trace.CallAllgather, trace.CallAlltoall, trace.CallBarrier:
		last := members[0]
		for _, c := range members {
			if c.t0 > last.t0 {
				last = c
			}
		}
		for _, c := range members {
			mb.addWait(WaitNxN, c, nil, last.proc, min(last.t0, c.t1)-c.t0)
		}
	case trace.CallReduce, trace.CallGather:
		var root *msgCall
		first, firstProc := -1.0, -1
		for _, c := range members {
			if c.peer == c.proc {
				root = c
			} else if first < 0 || c.t0 < first {
				first, firstProc = c.t0, c.proc
			}
		}
		if root != nil && firstProc >= 0 {
			mb.addWait(EarlyReduce, root, nil, firstProc, min(first, root.t1)-root.t0)
		}
	case trace.CallBcast, trace.CallScatter:
		var root *msgCall
		for _, c := range members {
			if c.peer == c.proc {
				root = c
			}
		}
		if root == nil {
			return
		}
		for _, c := range members {
			if c != root {
				mb.addWait(LateBcast, c, nil, root.proc, min(root.t0, c.t1)-c.t0)
			}
		}
	}
}

// build finishes the statistics: the instances still incomplete, the
// sends never received, the names of the sites.
func (mb *msgBuilder) build(pi progInfo, N int) *MessageStats {
	if !mb.seen {
		return nil
	}
	for _, ms := range mb.insts {
		mb.instance(ms)
	}
	ms := &MessageStats{UnpairedRecvs: mb.unpaired, UnpairedSends: int64(len(mb.sends))}
	pad := func(x []float64) []float64 {
		for len(x) < N {
			x = append(x, 0)
		}
		return x
	}
	for k, cs := range mb.calls {
		cs.Func, cs.Where = pi.call(cs.Call, k[1])
		cs.PerProc = pad(cs.PerProc)
		ms.Calls = append(ms.Calls, cs)
	}
	slices.SortFunc(ms.Calls, func(a, b *CallStat) int {
		return cmp.Or(cmp.Compare(b.Time, a.Time), cmp.Compare(a.Call, b.Call))
	})
	for _, ps := range mb.matrix {
		ms.Matrix = append(ms.Matrix, *ps)
	}
	slices.SortFunc(ms.Matrix, func(a, b PairStat) int { return cmp.Or(cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst)) })
	for _, w := range mb.waits {
		w.Func, w.Where = pi.call(w.Call, w.kindOf)
		if w.Peer != 0 {
			w.PeerFunc, w.PeerWhere = pi.call(w.Peer, mb.peerKind[w.Peer])
		}
		w.PerProc = pad(w.PerProc)
		w.Culprit = -1
		best := 0
		for p, n := range w.culprit {
			if n > best || n == best && p < w.Culprit {
				w.Culprit, best = p, n
			}
			w.Culprits = append(w.Culprits, p)
		}
		slices.Sort(w.Culprits)
		ms.Waits = append(ms.Waits, w)
	}
	slices.SortFunc(ms.Waits, func(a, b *MsgWait) int {
		return cmp.Or(cmp.Compare(b.Time, a.Time), strings.Compare(a.Kind, b.Kind), cmp.Compare(a.Call, b.Call))
	})
	return ms
}

// call names call site n (of call kind k when the program information
// does not have it): its function and position.
func (pi progInfo) call(n, k int) (fn, where string) {
	if pi.p != nil {
		if c := pi.p.Call(n); c != nil {
			return c.Func, c.Pos.String()
		}
	}
	if n > 0 {
		return trace.CallKindName(k), fmt.Sprintf("call site %d", n)
	}
	return trace.CallKindName(k), "an unnumbered call"
}

// messageFindings turns the wait states into findings.
func messageFindings(m *Model, pi progInfo) []Finding {
	if m.Messages == nil {
		return nil
	}
	var fs []Finding
	for _, w := range mergedWaits(m.Messages.Waits) {
		var title, advice string
		procs := procsWaiting(w.PerProc)
		switch w.Kind {
		case LateSender:
			who, most := culprits(w, "sends", "send")
			title = fmt.Sprintf("%s wait%s %s in %s (%s) for messages that %s later%s from %s (%s), %s",
				procs, verbS(procs), Dur(w.Time), w.Func, w.Where, who, most, w.PeerFunc, w.PeerWhere, plural(w.Count, "message"))
			advice = "the receive starts before its message is sent: post it early as Irecv and Wait only when the data is needed, send earlier, or give the sender less work before the send"
		case LateReceiver:
			who, most := culprits(w, "posts its receive", "post their receives")
			title = fmt.Sprintf("%s wait%s %s in %s (%s) until %s%s (%s, %s), %s",
				procs, verbS(procs), Dur(w.Time), w.Func, w.Where, who, most, w.PeerFunc, w.PeerWhere, plural(w.Count, "message"))
			advice = "the send waits for its receive: post the receive earlier (Irecv), send with Isend, or let standard sends buffer (a larger msg_buffer)"
		case WaitNxN:
			title = fmt.Sprintf("%s wait%s %s in %s (%s) for the last processor to arrive (processor %d most often), %s",
				procs, verbS(procs), Dur(w.Time), w.Func, w.Where, w.Culprit, plural(w.Count, "wait"))
			advice = "the processors reach the collective at different times: balance the work before it"
		case EarlyReduce:
			title = fmt.Sprintf("the root waits %s in %s (%s) for the first contribution (processor %d), %s",
				Dur(w.Time), w.Func, w.Where, w.Culprit, plural(w.Count, "time"))
			advice = "the root enters the reduction before the others are ready: give the root other work first, or balance the work before it"
		case LateBcast:
			title = fmt.Sprintf("%s wait%s %s in %s (%s) for the root, processor %d, %s",
				procs, verbS(procs), Dur(w.Time), w.Func, w.Where, w.Culprit, plural(w.Count, "wait"))
			advice = "the root reaches the broadcast late: give the root less work before it, or start it earlier"
		}
		st := Site{Sub: w.Sub, Func: w.Func, Kind: w.Func}
		if s := pi.sub(w.Sub); s != nil {
			st.Func, st.Main = s.Name, s.Main
			st.Kind = w.Func
		}
		if c := pi.p.Call(w.Call); c != nil {
			st.File, st.Line, st.Col = c.Pos.File, c.Pos.Line, c.Pos.Col
		}
		region := -1
		if r := pi.callRegion(w.Call); r != nil {
			region = r.Num
		}
		fs = append(fs, Finding{Kind: w.Kind, Lost: w.Time, Site: st, Region: region, Title: title, Advice: advice})
	}
	return fs
}

// mergedWaits is one wait state per kind and waiting call, for findings:
// the waits of one receive for sends at several lines become one, named by
// the send that cost most ("and N more").
func mergedWaits(ws []*MsgWait) []*MsgWait {
	type key struct {
		kind string
		call int
	}
	var out []*MsgWait
	byKey := map[key]*MsgWait{}
	peers := map[key]int{}
	for _, w := range ws { // by time, largest first: the first is the main one
		k := key{w.Kind, w.Call}
		m := byKey[k]
		if m == nil {
			c := *w
			c.PerProc = slices.Clone(w.PerProc)
			c.Culprits = slices.Clone(w.Culprits)
			byKey[k] = &c
			out = append(out, &c)
			peers[k] = 1
			continue
		}
		m.Count += w.Count
		m.Time += w.Time
		m.Max = max(m.Max, w.Max)
		for _, p := range w.Culprits {
			if !slices.Contains(m.Culprits, p) {
				m.Culprits = append(m.Culprits, p)
			}
		}
		slices.Sort(m.Culprits)
		for p, x := range w.PerProc {
			if p < len(m.PerProc) {
				m.PerProc[p] += x
			}
		}
		if w.Peer != m.Peer {
			peers[k]++
		}
	}
	for _, m := range out {
		if n := peers[key{m.Kind, m.Call}]; n > 1 && m.PeerWhere != "" {
			m.PeerWhere += fmt.Sprintf(" and %d more", n-1)
		}
	}
	slices.SortStableFunc(out, func(a, b *MsgWait) int { return cmp.Compare(b.Time, a.Time) })
	return out
}

// callRegion is the innermost region of the call's subprogram that holds
// the call.
func (pi progInfo) callRegion(n int) *progdb.Region {
	if pi.p == nil {
		return nil
	}
	c := pi.p.Call(n)
	if c == nil {
		return nil
	}
	s := pi.sub(c.Sub)
	if s == nil {
		return nil
	}
	var best *progdb.Region
	for _, r := range s.Regions {
		if posLE(r.Pos, c.Pos) && posLE(c.Pos, r.End) && (best == nil || posLE(best.Pos, r.Pos)) {
			best = r
		}
	}
	return best
}

func procsWaiting(per []float64) string {
	var ps []int
	for p, w := range per {
		if w > 0 {
			ps = append(ps, p)
		}
	}
	switch len(ps) {
	case 0:
		return "no processor"
	case 1:
		return fmt.Sprintf("processor %d", ps[0])
	}
	return "processors " + rangesText(ps)
}

// culprits names the processors a wait state waited for with the verb
// for one or several, "processor 2 sends" or "processors 1-2 send" (a
// master's receive from any worker waits for each), and then the one
// most often waited for, " (processor 2 most often)", when several.
func culprits(w *MsgWait, one, several string) (who, most string) {
	if len(w.Culprits) <= 1 {
		return fmt.Sprintf("processor %d %s", w.Culprit, one), ""
	}
	return fmt.Sprintf("processors %s %s", rangesText(w.Culprits), several), fmt.Sprintf(" (processor %d most often)", w.Culprit)
}

func verbS(subject string) string {
	if strings.HasPrefix(subject, "processor ") {
		return "s"
	}
	return ""
}

// rangesText writes ascending numbers as ranges: "0-2, 5".
func rangesText(ps []int) string {
	var b strings.Builder
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ps[i], ps[j])
		} else {
			fmt.Fprintf(&b, "%d", ps[i])
		}
		i = j + 1
	}
	return b.String()
}
