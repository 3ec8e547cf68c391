package rtlib

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"time"
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
	if r.endedIn.Load() == uint64(r.ranks.Size()-1) && r.allEnded() {
		return // every rank ended: endRanks ends the job
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
	ended, chunk := false, false
	for k, s := range d.ranks {
		// Under its rank: with several processors a rank, the numbers
		// alone do not tell where each runs.
		fmt.Fprintf(&b, "\n  rank %d:", k)
		b.WriteString(strings.ReplaceAll(s.waits, "\n  ", "\n    "))
		ended = ended || strings.Contains(s.waits, endedText)
		chunk = chunk || strings.Contains(s.waits, chunkText)
	}
	// Either says that processor 0's copies are not at the same place: a
	// rank ended, or rank 0 never started the loop another rank is in.
	switch {
	case ended:
		b.WriteString("\n  some ranks ended the program while others wait in it: " + partedText)
	case chunk:
		b.WriteString("\n  rank 0 has not reached the dynamic pdo another rank waits in: " + partedText)
	}
	return &Error{Proc: -1, Msg: b.String()}
}

// endedText is a processor's wait in a deadlock report once it ended,
// chunkText one's that waits for rank 0 to hand out a chunk of a pdo, and
// partedText says why processor 0's copies part.
const (
	endedText  = "has ended, waiting for the other ranks to end"
	chunkText  = "waiting for rank 0 to hand out a chunk of the pdo"
	partedText = "processor 0 runs on every rank, and its code outside parallel loops must take the same path on each; a variable a pdo writes that is not //svm:shared (the compiler's warnings under --mpi name them), a random number without a fixed seed, a timer (time.After), a clock a library reads or anything else that differs between the ranks runs a different number of pdos on each"
)

// endRanks is the end of this rank's run once its processors ended: as a
// process ends once all its processors did, a job ends once all its ranks
// did. Each rank tells rank 0, which tells them all when every one has.
// Meanwhile the processors count as blocked ("has ended") for the
// watchdogs, which find a job whose ranks cannot all end: processor 0's
// copies went different ways (x423: a loop bounded by time.Since, before
// ranktime.go, ran a different number of pdos on each rank; rank 0 ended,
// and its MPI_Finalize waited for ever for rank 1, which waited at a pdo's
// end).
func (r *run) endRanks() {
	if !r.spread() {
		return
	}
	for _, p := range r.procs {
		p.waitFor(wEnded, Site{})
		p.publishWait()
	}
	n := uint64(1)
	if r.rank == 0 {
		n = uint64(r.ranks.Size() - 1)
	} else {
		r.postEnd(0, rankEnded)
	}
	if !r.awaitEnded(n) {
		return // the run failed: its error ends the job
	}
	if r.rank == 0 {
		for k := 1; k < r.ranks.Size(); k++ {
			r.postEnd(k, rankAllEnded)
		}
	}
	close(r.ranksEnded)
}

// allEnded reports whether every processor of this rank ended (endRanks
// published it).
func (r *run) allEnded() bool {
	select {
	case <-r.allDone:
		return true
	default:
		return false
	}
}

// postEnd posts an end message of kind k to rank to (counted: a judge
// must not find the job quiet while it travels).
func (r *run) postEnd(to int, k uint64) {
	b := getBuf(8 * rankHeader)
	clear(b)
	binary.LittleEndian.PutUint64(b, k)
	binary.LittleEndian.PutUint64(b[8:], uint64(r.rank))
	r.postsOut.Add(1)
	r.ranks.Post(to, b, nil, nil, nil)
}

// awaitEnded polls the transport until n end messages came, or the run
// failed (a deadlock the watchdogs found, another rank's failure).
func (r *run) awaitEnded(n uint64) bool {
	for i := 0; r.endedIn.Load() < n; i++ {
		select {
		case <-r.failCh:
			return false
		default:
		}
		if !r.ranks.Progress() && i > 64 {
			time.Sleep(50 * time.Microsecond)
		}
	}
	return true
}
