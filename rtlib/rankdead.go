package rtlib

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
)

// Deadlock between ranks. A rank's watchdog cannot tell a deadlock from a
// wait for another rank, so each one reports to rank 0 at every look
// (rankStatus) whether all of its processors have been blocked since its
// last look, and how many messages it has posted to other ranks and taken
// from them. Rank 0 declares the job deadlocked when, at two of its looks
// in a row, every rank reported itself quiet, no message was in flight
// (the ranks' posts and arrivals add up alike) and no count moved: the
// counters' form of termination detection (Mattern's four counters), which
// a message in flight or a rank that woke between two reports defeats.
// The error lists every rank's processors' waits, each rank describing
// its own.

// rankState is one rank's last report.
type rankState struct {
	quiet     bool
	out, in   int64
	waits     string
	fresh     bool // reported since rank 0's last look
	lastOut   int64
	lastIn    int64
	lastQuiet bool
}

// rankDead is rank 0's view of the ranks' reports.
type rankDead struct {
	mu     sync.Mutex
	ranks  []rankState
	rounds int // looks in a row that found the job quiet
}

// rankQuiet reports this rank's state (quiet: every processor blocked
// since the last look; states: their waits) to rank 0, which also judges
// the job.
func (r *run) rankQuiet(quiet bool, states []uint64) {
	var waits string
	if quiet {
		waits = r.waitLines(states, r.rank*r.perRank, (r.rank+1)*r.perRank)
	}
	out, in := r.postsOut.Load(), r.postsIn.Load()
	if r.rank != 0 {
		b := getBuf(8*rankHeader + len(waits))[:8*rankHeader]
		clear(b)
		le := binary.LittleEndian
		le.PutUint64(b, rankStatus)
		le.PutUint64(b[8:], uint64(r.rank))
		if quiet {
			le.PutUint64(b[16:], 1)
		}
		le.PutUint64(b[24:], uint64(out))
		le.PutUint64(b[32:], uint64(in))
		r.ranks.Post(0, append(b, waits...), nil, nil, nil)
		return
	}
	r.dead.mu.Lock()
	r.dead.record(0, r.ranks.Size(), quiet, out, in, waits)
	err := r.dead.judge()
	r.dead.mu.Unlock()
	if err != nil {
		r.fail(err)
	}
}

// rankStatusIn takes another rank's report (rank 0).
func (r *run) rankStatusIn(h [rankHeader]int64, waits []byte) {
	k := int(h[1])
	if r.rank != 0 || k <= 0 || k >= r.ranks.Size() {
		return
	}
	r.dead.mu.Lock()
	r.dead.record(k, r.ranks.Size(), h[2] != 0, h[3], h[4], string(waits))
	r.dead.mu.Unlock()
}

// record stores rank k's report; d.mu is held.
func (d *rankDead) record(k, n int, quiet bool, out, in int64, waits string) {
	if d.ranks == nil {
		d.ranks = make([]rankState, n)
	}
	s := &d.ranks[k]
	s.quiet, s.out, s.in, s.waits, s.fresh = quiet, out, in, waits, true
}

// judge is rank 0's look (after recording its own report): the deadlock
// error, or nil. Only when every rank reported since the last look does
// the look count; d.mu is held.
func (d *rankDead) judge() error {
	var out, in int64
	quiet, fresh, moved := true, true, false
	for _, s := range d.ranks {
		fresh = fresh && s.fresh
		quiet = quiet && s.quiet
		out, in = out+s.out, in+s.in
		moved = moved || s.out != s.lastOut || s.in != s.lastIn || !s.lastQuiet
	}
	if !fresh {
		return nil
	}
	for i := range d.ranks {
		s := &d.ranks[i]
		s.fresh, s.lastOut, s.lastIn, s.lastQuiet = false, s.out, s.in, s.quiet
	}
	switch {
	case !quiet || out != in:
		d.rounds = 0
	case moved:
		d.rounds = 1
	default:
		d.rounds++
	}
	if d.rounds < 2 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "deadlock: no processor of the %d ranks can proceed, and no message is on its way between them", len(d.ranks))
	for _, s := range d.ranks {
		b.WriteString(s.waits)
	}
	return &Error{Proc: -1, Msg: b.String()}
}
