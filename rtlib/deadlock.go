package rtlib

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// waitKind is what a processor waits for; it also names barrier sites.
type waitKind uint8

const (
	wRunning       waitKind = iota
	wIdle                   // waiting for work from the APS leader (wat.Sub: its pid)
	wBarrier                // explicit barrier
	wPDOEnd                 // implicit barrier at the end of a pdo
	wPSectionEnd            // implicit barrier at the end of a psection
	wReplicatedEnd          // implicit barrier at the end of a replicated region
	wExclusiveEnd           // implicit barrier at the end of an exclusive region
	wCheckout               // barrier checkout
	wLock                   // lock directive
	wCritical               // critical section
	wAtomic                 // atomic update of a variable without hardware atomics
	wLeader                 // a construct in replicated mode waiting for the leader's dispatch (wpeer)
	wAck                    // the leader waits for the members to take its previous task
	wMsgSend                // a send waits for its receive (wpeer: the destination)
	wMsgRecv                // a receive waits for a message (wpeer: the source or AnySource)
	wMsgWaitSend            // Wait on an Isend
	wMsgWaitRecv            // Wait on an Irecv
	wMsgProbe               // Probe
	wMsgColl                // a collective waits for processor wpeer
	wPage                   // an access check waits for a page from the rank of processor wpeer
	wEnded                  // the processor ended; its rank waits for the other ranks to end (endRanks)
	wDecision               // processor 0's copy waits for rank 0's Test answer or clock reading (sameTest, ranktime.go)
	wChunk                  // a processor waits for rank 0 to hand out a chunk of a dynamic pdo (rankFetch)
	wSectionTurn            // between ranks, a section waits for the earlier ones of its rank (waitTurn)
)

// siteName names a barrier site kind in messages.
func (k waitKind) siteName() string {
	switch k {
	case wBarrier:
		return "barrier"
	case wPDOEnd:
		return "end of pdo"
	case wPSectionEnd:
		return "end of psection"
	case wReplicatedEnd:
		return "end of replicated region"
	case wExclusiveEnd:
		return "end of exclusive region"
	}
	return "?"
}

// waitFor describes the wait p is about to start; await publishes it if the
// wait blocks. Plain stores on p's own fields: the cost of a wait that does
// not block is three moves.
func (p *Proc) waitFor(k waitKind, at Site) { p.wk, p.wat = k, at }

// publishWait makes the wait described by waitFor visible to the watchdog:
// the site first, then the state word (sequence number and kind), so a
// watchdog that reads the state and then the site sees this wait's site or
// a newer one (and then a newer sequence number on its next look).
func (p *Proc) publishWait() {
	p.wsite.Store(uint64(uint32(p.wat.Sub))<<32 | uint64(uint32(p.wat.Dir)))
	p.wpeer.Store(int32(p.wpeerID))
	p.wseq++
	p.wstate.Store(p.wseq<<8 | uint64(p.wk))
}

func (p *Proc) unpublishWait() { p.wstate.Store(p.wseq << 8) }

// DefaultDeadlockTimeout is how long every processor must have been blocked
// without progress before the run is declared deadlocked, unless
// Params.Deadlock or SVMC_DEADLOCK_MS says otherwise.
const DefaultDeadlockTimeout = 500 * time.Millisecond

// deadlockTimeout resolves Params.Deadlock: negative off, 0 the environment
// (SVMC_DEADLOCK_MS, milliseconds, 0 off) or the default.
func deadlockTimeout(d time.Duration) time.Duration {
	if d != 0 {
		return d
	}
	if s := getenv("SVMC_DEADLOCK_MS"); s != "" {
		if ms, err := strconv.Atoi(s); err == nil && ms >= 0 {
			if ms == 0 {
				return -1
			}
			return time.Duration(ms) * time.Millisecond
		}
	}
	return DefaultDeadlockTimeout
}

// startWatchdog starts the deadlock watchdog of the run (see doc.go). It
// ends when every processor ended or the run failed.
func (r *run) startWatchdog(d time.Duration) {
	d = deadlockTimeout(d)
	if d <= 0 || r.standalone {
		return
	}
	go r.watchdog(d)
}

// watchdog looks at the processors every d/2. When every processor is
// blocked in a wait of the runtime (none running, none with a wake-up token
// pending) and no processor's state changed over two looks in a row (so for
// at least d), it stops the run with the list of the waits.
func (r *run) watchdog(d time.Duration) {
	t := time.NewTicker(d / 2)
	defer t.Stop()
	prev := make([]uint64, r.n)
	cur := make([]uint64, r.n)
	stable := 0
	// The program's own goroutines can deadlock with a processor running
	// (Go's detector, "all goroutines are asleep", never fires while this
	// ticker is pending): after goQuietLooks looks (10 d, 5 s by default)
	// at which no processor's state changed, the goroutines are looked at
	// (goDeadlock). Long, as a timer a goroutine waits for is not seen.
	last := make([]uint64, r.n)
	quiet, warned := 0, false
	goQuietLooks := 20
	if r.prog != nil && r.prog.NoTimers {
		// No timer can end the waits: one look at them all asleep tells
		// (runtime.Stack stops the world), a few make sure.
		goQuietLooks = 4
	}
	allDone := r.allDone
	for {
		select {
		case <-allDone:
			if !r.spread() {
				return
			}
			allDone = nil // the other ranks may not end: look on (endRanks)
		case <-r.ranksEnded:
			return
		case <-r.failCh:
			return
		case <-t.C:
		}
		blocked, changed := true, false
		for i, p := range r.procs {
			s := p.wstate.Load()
			if waitKind(s&0xff) == wRunning || p.waiter.Pending() {
				blocked = false
			}
			changed = changed || s != last[i]
			last[i], cur[i] = s, s
		}
		if changed || blocked || r.spread() {
			quiet = 0
		} else if quiet++; quiet >= goQuietLooks {
			quiet = 0
			switch msg, sure := r.goDeadlock(); {
			case msg == "":
			case sure:
				r.fail(&Error{Proc: -1, Msg: msg})
				return
			case !warned:
				// A goroutine receives or selects: a timer (time.After)
				// may wake it, which cannot be seen from here.
				warned = true
				fmt.Fprintf(r.stderr, "svmc: %s\n  (one of them may wait for a timer, time.After in a select, which svmc cannot see: if none does, this is a deadlock; svmc goes on waiting)\n", strings.Replace(msg, goAsleep, "every goroutine of the program has waited a while on a channel or a lock", 1))
			}
		}
		switch {
		case !blocked:
			stable = 0
		case slices.Equal(cur, prev):
			stable++
		default:
			stable = 1
			copy(prev, cur)
		}
		if r.spread() {
			// Another rank may yet send: rank 0 decides (rankdead.go).
			r.rankQuiet(stable >= 2, cur)
			continue
		}
		if stable >= 3 {
			r.fail(r.deadlockError(cur))
			return
		}
	}
}

// goAsleep heads the report of a deadlock of the program's goroutines.
const goAsleep = "deadlock: all goroutines are asleep (each waits on a channel or a lock that no other will release)"

// asleepStates are the states of runtime.Stack in which a goroutine waits
// for another goroutine: on a channel, a lock, a WaitGroup, a Cond.
var asleepStates = map[string]bool{
	"chan receive": true, "chan send": true, "chan receive (nil chan)": true, "chan send (nil chan)": true,
	"select": true, "select (no cases)": true, "semacquire": true, "sync.Cond.Wait": true,
	"sync.WaitGroup.Wait": true, "sync.Mutex.Lock": true, "sync.RWMutex.Lock": true, "sync.RWMutex.RLock": true,
}

// goDeadlock looks at every goroutine: when each of the program's (the
// processors' and those its code started) waits on a channel or a lock,
// none runs, sleeps, does I/O or is in a system call, and the program
// handles no signal (one could wake it), the run is deadlocked as Go would
// say "all goroutines are asleep": msg names each processor's and each
// other goroutine's line. sure: no goroutine of the program receives from
// a channel or selects, which a timer could end, or the program makes no
// timer (Program.NoTimers). "" otherwise.
func (r *run) goDeadlock() (msg string, sure bool) {
	if programTakesAny() {
		return "", false
	}
	sure = true
	gs := allGoroutines()
	procOf := map[int64]int{}
	for i, p := range r.procs {
		procOf[p.goid.Load()] = i
	}
	self := goid()
	type group struct {
		state, where string
		ids          []int64
	}
	var others []*group
	for _, g := range gs {
		if g.id == self || g.id == r.waiterGoid {
			continue // this watchdog; Run's caller waiting for the run
		}
		_, isProc := procOf[g.id]
		if !isProc && g.where == "" {
			continue // the runtime's own helpers (trace writers, signal watches)
		}
		if !asleepStates[g.state] {
			return "", false
		}
		if (g.state == "chan receive" || g.state == "select") && (r.prog == nil || !r.prog.NoTimers) {
			if i, ok := procOf[g.id]; !ok || waitKind(r.procs[i].wstate.Load()&0xff) == wRunning {
				sure = false // a user's receive, maybe from a timer (a processor's own waits are the runtime's)
			}
		}
		if isProc {
			continue
		}
		k := slices.IndexFunc(others, func(o *group) bool { return o.state == g.state && o.where == g.where })
		if k < 0 {
			others = append(others, &group{state: g.state, where: g.where})
			k = len(others) - 1
		}
		others[k].ids = append(others[k].ids, g.id)
	}
	var b strings.Builder
	b.WriteString(goAsleep)
	for i, p := range r.procs {
		s := p.wstate.Load()
		if k := waitKind(s & 0xff); k != wRunning {
			site := p.wsite.Load()
			at := Site{Sub: int(int32(uint32(site >> 32))), Dir: int(int32(uint32(site)))}
			fmt.Fprintf(&b, "\n  processor %d: %s", i, r.waitText(k, at, int(p.wpeer.Load())))
			continue
		}
		for _, g := range gs {
			if g.id == p.goid.Load() {
				fmt.Fprintf(&b, "\n  processor %d: blocked (%s)", i, g.state)
				if g.where != "" {
					b.WriteString(" in " + g.where)
				}
			}
		}
	}
	const most = 8
	for i, o := range others {
		if i == most {
			fmt.Fprintf(&b, "\n  and goroutines at %d places more", len(others)-most)
			break
		}
		if len(o.ids) == 1 {
			fmt.Fprintf(&b, "\n  goroutine %d: blocked (%s) in %s", o.ids[0], o.state, o.where)
		} else {
			fmt.Fprintf(&b, "\n  %d goroutines (%d, ...): blocked (%s) in %s", len(o.ids), o.ids[0], o.state, o.where)
		}
	}
	b.WriteString(r.unreceivedLines())
	return b.String(), sure
}

// deadlockError describes every processor's wait, and the messages that
// were sent and never received: a receive that waits for one message while
// another, sent to it with another tag or from another processor, waits in
// its mailbox is the common cause (x242: a worker sent tag 8, the master
// waited for tag 7).
func (r *run) deadlockError(states []uint64) error {
	return &Error{Proc: -1, Msg: "deadlock: no processor can proceed" + r.waitLines(states, 0, r.n) + r.unreceivedLines()}
}

// unreceivedLines lists, a line each, the messages of the run that no
// receive took (the first few).
func (r *run) unreceivedLines() string {
	if r.net == nil {
		return ""
	}
	left, _ := r.net.Pending()
	var b strings.Builder
	const most = 4
	for i, m := range left {
		if i == most {
			fmt.Fprintf(&b, "\n  and %d messages more", len(left)-most)
			break
		}
		at := ""
		if pos := r.callPos(m.Site); pos != "" {
			at = " at " + pos
		}
		fmt.Fprintf(&b, "\n  not received: the message processor %d sent to processor %d with tag %d%s (%d elements), which matches none of its receives", m.Src, m.Dst, m.Tag, at, m.Count)
	}
	return b.String()
}

// waitLines describes the waits of processors lo to hi − 1, a line each.
func (r *run) waitLines(states []uint64, lo, hi int) string {
	var b strings.Builder
	for i := lo; i < hi; i++ {
		p := r.procs[i]
		k := waitKind(states[i] & 0xff)
		s := p.wsite.Load()
		at := Site{Sub: int(int32(uint32(s >> 32))), Dir: int(int32(uint32(s)))}
		fmt.Fprintf(&b, "\n  processor %d: %s", i, r.waitText(k, at, int(p.wpeer.Load())))
	}
	return b.String()
}

func (r *run) waitText(k waitKind, site Site, peer int) string {
	at := func(what string) string {
		if pos := r.pos(site); pos != "" {
			return what + " (" + pos + ")"
		}
		return what
	}
	switch k {
	case wRunning:
		return "running"
	case wEnded:
		return endedText
	case wDecision:
		return at("waiting for rank 0's copy of processor 0 to say what it found (its Test's answer or its reading of the clock)")
	case wChunk:
		return at(chunkText)
	case wSectionTurn:
		return at("waiting for the earlier sections of the psection to end on its rank")
	case wIdle:
		return fmt.Sprintf("idle, waiting for work from processor %d", site.Sub)
	case wBarrier:
		return at("waiting at barrier")
	case wPDOEnd, wPSectionEnd, wReplicatedEnd, wExclusiveEnd:
		return at("waiting at the barrier at the " + k.siteName())
	case wCheckout:
		return at("waiting at barrier checkout")
	case wLock:
		return at("waiting for a lock")
	case wCritical:
		return at("waiting to enter the critical section")
	case wAtomic:
		return at("waiting for an atomic update")
	case wLeader:
		return at("waiting for processor " + strconv.Itoa(peer) + " at the same construct")
	case wAck:
		return "waiting for the other processors to take its previous task"
	case wMsgSend, wMsgWaitSend:
		return at(fmt.Sprintf("in %s, waiting for processor %d to receive", r.waitFunc(site), peer))
	case wMsgRecv, wMsgWaitRecv, wMsgProbe:
		from := "any processor"
		if peer >= 0 {
			from = "processor " + strconv.Itoa(peer)
		}
		return at(fmt.Sprintf("in %s, waiting for a message from %s", r.waitFunc(site), from))
	case wMsgColl:
		return at(fmt.Sprintf("in %s, waiting for processor %d", r.waitFunc(site), peer))
	case wPage:
		return fmt.Sprintf("waiting for a page of shared storage from the rank of processor %d", peer)
	}
	return "?"
}

// siteError describes the sites the members of a reached in one barrier
// instance: one line per site with its processors, in order of the lowest
// processor.
func (a *aps) siteError() error {
	var sites []site
	var procs [][]int
	for i := range a.slots {
		st := a.slots[i].site
		k := slices.Index(sites, st)
		if k < 0 {
			k = len(sites)
			sites = append(sites, st)
			procs = append(procs, nil)
		}
		procs[k] = append(procs[k], a.pids[i])
	}
	var b strings.Builder
	b.WriteString("processors reached different barriers:")
	for k, s := range sites {
		b.WriteString("\n  ")
		if pos := a.r.pos(s.at); pos != "" {
			b.WriteString(pos + " ")
		}
		b.WriteString(s.kind.siteName())
		if len(procs[k]) == 1 {
			fmt.Fprintf(&b, ": processor %d", procs[k][0])
		} else {
			b.WriteString(": processors ")
			for j, q := range procs[k] {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strconv.Itoa(q))
			}
		}
	}
	return &Error{Proc: -1, Msg: b.String()}
}
