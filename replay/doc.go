// Package replay is the one reading of an svmc trace that the tools share
// (the report, the view, the exports, and the checker and the comparison
// of runs to come): it decodes records into compact Events, merges the
// processors' streams into a causally consistent order (seed 001, VISTOP)
// and replays each processor's events into typed intervals — regions,
// waits, holds and measured intervals — reported to a Handler. It is the
// one place that decides which barrier is an implicit one and that an
// atomic update holds nothing. It imports the standard library, trace and
// progdb only.
//
// # Consistent order
//
// Order merges the per-processor streams into one order that keeps each
// processor's order and puts every barrier exit after all entries of its
// instance, a split-barrier check-out after all check-ins, a lock grant
// after the release of its previous holder (a lock is never granted while
// held), a critical-section entry after the previous exit of the same
// section (by name), and a message receive after its send (the hook
// OrderOptions.Message, for records from #2000 up). Among the records whose
// predecessors are out it emits the one with the smallest corrected time
// Time = max(Clock, Time of every causal predecessor) — a forward-only
// logical clock correction; a record with Time > Clock violates the clock
// condition and is counted (OrderStats.Violations), as is every
// synchronisation edge that goes backwards in time (EdgeViolations).
//
// A k-way merge over one interleaved stream needs look-ahead: the runtime
// writes each processor's 1 MiB buffer as one run, so the next record of a
// processor may lie a few runs further on. Order reads ahead until every
// processor has a record waiting, but at most OrderOptions.Lookahead
// records (default 2^18, the records of about nine full 1 MiB buffers); beyond
// that it emits what it has, counting records that then come out of time
// order (OutOfOrder). A causal dependency that is still unread may make it
// read on to MaxBuffer (8 × Lookahead); a constraint that cannot be met
// (an incomplete barrier instance, a lock never released, more than 4096
// open instances of one barrier) is dropped and counted (Forced). OrderFile
// avoids the look-ahead for binary files: one scan of the packet framing
// finds each processor's runs, and each processor is then read by a reader
// of its own, so the merge holds one record per processor plus the heads
// blocked on a partner: memory O(N), independent of the buffer size and of
// the order of the runs. `svmc report` reads binary traces this way.
//
// # Intervals
//
// A Replayer keeps per processor one stack of open intervals. A record
// opens an interval (trace-region-start, wait-*-start, the grant of a lock
// or critical section, measure-start), closes the innermost open one it
// matches (with those opened inside it and still open, marked Unclosed), or
// is an instant. A barrier wait is implicit when one of the processor's open
// regions was opened by the barrier's directive, or when the program
// information marks the directive implicit_barrier; the grant of an atomic
// update's lock opens no hold. Finish closes what is still open at each
// processor's last record.
package replay
