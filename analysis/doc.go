// Package analysis reads svmc traces and answers where the time of a run
// goes (DESIGN.md §7): the model behind `svmc report`, the automatic search
// for bottlenecks of OPAL (seed 002 §2) and the trace request for the next
// run. It reads the trace through package replay (the causally consistent
// order of seed 001 and each processor's intervals) and imports the
// standard library, trace, progdb and replay only.
//
// # The pass
//
// Analyze (a *trace.Reader) and AnalyzeFile / AnalyzeReaderAt (a file) read
// a trace once. Records go through replay.OrderFile (or replay.Order) first,
// then through a replay.Replayer, which pairs each processor's records into
// regions, waits, holds and measured intervals; the model attributes each
// processor's time between its records to the state it is in and keeps per
// region, loop and
// synchronisation site one row per processor, so its memory grows with
// regions × processors, not with the length of the trace. The program
// information comes from Options.Prog or from the trace's stream attribute
// "svmc program info" (ProgramInfo); without it rows are named by numbers.
//
// # Definitions
//
// All times are microseconds. N is the number of processors (the trace's
// "processors" attribute), T = End − Start the run time from the earliest
// to the latest record of any processor.
//
// Regions. A trace region is (subprogram, directive, region type); region
// 0 of a subprogram is the subprogram itself. Per region and processor:
// calls; inclusive time = Σ (stop − start) over the outermost activations
// (a recursive call is not counted twice); exclusive time = Σ (inclusive
// time of the activation − inclusive time of the regions directly inside
// it). A region still open at a processor's last record is closed there
// (and counted in the warnings).
//
// Parallel loops. Instance k of a pdo site is the k-th pdo region of that
// (subprogram, directive) on each processor. busy_p,k is the "busy
// microseconds" of the processor's pdo-work record (#2001) when present,
// else the time from its region start to its arrival at the loop's
// implicit barrier (wait-barrier-start with the pdo's subprogram and
// directive), else its region time; iterations come from pdo-work only.
// With M_k the members of instance k (the pids of the leader's aps-info,
// else N) and time_p,k the processor's region time:
//
//	Busy_p     = Σ_k busy_p,k
//	Imbalance  = max_p Busy_p / mean_p Busy_p        (1 = balanced)
//	Lost       = Σ_k Σ_{p∈M_k} (max_q busy_q,k − busy_p,k)
//	APSTime    = Σ_k |M_k| × max_p time_p,k
//	LostShare  = Lost / APSTime   (= Σ(max − busy_p) / (N × loop time) for M_k = N)
//
// The strategy is the schedule the program information file records for the
// pdo (progdb.Schedule: "block (default)" without a strategy clause, "?"
// when the file has none); the iteration space is pdo-iteration-space's.
//
// Waiting. A wait is the time from a wait-*-start to the matching stop on
// the same processor: barrier (explicit; implicit when its subprogram and
// directive are those of an open pdo, psection, replicated or exclusive
// region, or of a directive the program information marks
// implicit_barrier), lock, critical section, split barrier
// (wait-bcheckout-start/stop). Per site (subprogram, directive, with the
// directive's file:line) and processor: count and total; per site the
// longest wait and, for locks and critical sections, the time held (grant
// to release-lock / exit-crit-sec; atomic updates hold nothing).
//
// Execution characteristics (Lib-DVM, seed 000 §11). Between two of its
// records a processor is in one state: waiting at an implicit barrier,
// waiting (other synchronisation), serial (a processor other than the
// leader, processor 0, outside any pdo, psection, section or replicated
// region, or inside an exclusive region: it waits for work), or running.
// For processor p, with W_p its waiting at implicit barriers and I_p =
// Σ_k min(w_p,k, max_q busy_q,k − busy_p,k) over its loop instances (plus
// its waiting at the implicit barriers of psection, replicated and
// exclusive regions):
//
//	Imbalance_p  = min(W_p, I_p)
//	Sync_p       = waiting at explicit barriers, locks, critical sections,
//	               split barriers + W_p − Imbalance_p
//	Overhead_p   = trace-overhead durations + pdo-info startup times
//	               + (first record − Start) + (End − last record)
//	Serial_p     = time in the serial state
//	Productive_p = T − Imbalance_p − Sync_p − Overhead_p − Serial_p
//
// trace-overhead and startup times are taken out of the state they fall
// in. The run's characteristics are the sums over processors: Total =
// N × T = Productive + Lost, Lost = Imbalance + Sync + Overhead + Serial,
// Efficiency = Productive / (N × T).
//
// Measured intervals (seed 000 §9). MeasureStart / MeasureFinish write
// measure-start {level, name} and measure-finish {level, name, elapsed}.
// A measure-finish closes the innermost open interval of the same name and
// level on its processor; the intervals opened inside it and still open,
// and those open at the processor's last record, are unfinished; a finish
// that matches nothing is counted in the warnings. Per (name, level) and
// processor: entries and the sum of their elapsed times (the finish's
// "elapsed microseconds", the runtime's own measurement; the clocks'
// difference when the field is absent). The level is the processor's own
// nesting: an interval opened in a pdo body by a member is level 1 on that
// member and one deeper on the leader inside an interval of its own, so it
// has a row per level. Measured intervals do not change the time model.
//
// Runtime statistics. stat-interval and stat-group (SVMC_STATS=1) and
// trace-end are written by the runtime after the processors stopped, with
// processor 0's node id and the clock of that moment: they are taken as
// they are (Model.Stats, Model.Ended) and count for no processor's time, so
// they do not stretch T. The statistics are the runtime's own figures
// (Lib-DVM's interval matrix, seed 000 §11, with its (n−1)/n rule: a call
// k processors make together counts 1/k call, t/k productive and
// (k−1)t/k lost), not the characteristics above; reports say so.
//
// # Findings
//
// Findings ranks bottlenecks by severity = Lost / (N × T), where Lost is
//
//	imbalance     a loop's Lost (reported when Imbalance >= MinImbalance)
//	pdo startup   N × Σ startup time of a loop (the others wait meanwhile)
//	barrier       Σ waits at an explicit barrier site
//	split barrier Σ waits at a barrier_checkout site
//	lock          Σ waits at a lock (or atomic) site
//	critical      Σ waits at a critical section site
//	serial        per region: min((N−1) × the leader's serial time in it,
//	              Serial × its share of the leader's serial time)
//	tracing       Σ trace-overhead durations
//
// and keeps those with severity >= MinSeverity. A run that did not end
// normally (trace-end status other than normal) is a finding of its own,
// "abnormal end", listed first and unranked (Unranked, severity 0): the
// figures cover only the part of the run that was traced. Each names its function and
// file:line and carries a one-line explanation and advice. NextRequest
// turns the top findings into a trace request file (seed 002 §5) for the
// next, finer run: the incremental cycle of seed 002's Figure 2.
//
// # Limits
//
// The leader is processor 0: the serial state of the other processors
// assumes the whole run's APS. Loop and barrier instances are matched by
// their count per site on each processor, and a barrier instance waits for
// N arrivals: parallel sections whose pdo loops or barriers run on a
// subset of the processors mix instances (their waits and busy times per
// processor stay exact; the per-instance imbalance and the order's barrier
// constraints do not, and the latter are counted as Forced). A pdo inside
// a pdo body runs serially and counts as an instance of one member. Message
// records are not written by this runtime; OrderOptions.Message is the hook
// for them.
//
// # JSON
//
// `svmc report --format json` writes a Report: {"trace", "model",
// "findings", "next_request"}. The model's fields are those of Model and
// the types it holds, with the names of their json tags (snake case, times
// in microseconds with the suffix _us, shares as fractions). Field names
// are kept stable; new fields may be added. Among them:
//
//	model.measures[]     measured intervals, in the order of their first entry:
//	                     name, level, entries, elapsed_us, mean_us, max_us,
//	                     unfinished (omitted when 0), first_us (clock of the
//	                     first measure-start), per_proc[] {entries, elapsed_us}
//	                     indexed by processor
//	model.stats[]        the runtime's interval statistics by id: id, parent
//	                     (-1 for the program), level, name, entries, procs,
//	                     execution_us, processor_time_us, user_productive_us,
//	                     user_lost_us, system_productive_us, system_lost_us,
//	                     productive_us, lost_us, idle_us, system_calls,
//	                     efficiency, groups[] {caller_group, caller_name,
//	                     group, group_name, calls, productive_us, lost_us}
//	model.end            always present: recorded (false without a trace-end
//	                     record; status is then -1), status (trace.End*),
//	                     status_name (normal, error, panic, deadlock,
//	                     interrupt, terminate, not recorded), message,
//	                     not_stopped[], lost_records (-1 unknown)
//	model.waits[]        per wait site: wait (barrier, lock, mutex, ...), count,
//	                     total_us, max_us, per_proc_us[], per_proc_count[];
//	                     goroutine_waits: of count, the waits of goroutines the
//	                     processors started (in their processor's column);
//	                     unfinished: waits still going on when a deadlocked or
//	                     stopped run ended (counted to its end)
//	model.stuck_mutexes  different sync mutexes that unfinished waits were for
//	                     (two or more: a likely lock-order inversion)
//	findings[].unranked  true for the abnormal-end finding (severity n/a)
//
// # A large trace
//
// The benchmarks generate a runtime-like binary trace in memory; for a
// measurement on a file,
//
//	SVMC_GEN_TRACE=/tmp/big.sddf SVMC_GEN_EVENTS=50000000 go test -run TestGenerateLargeTrace ./analysis
//	/usr/bin/time -v svmc report /tmp/big.sddf
//
// writes a 50-million-record trace (about 2 GB) and reports it.
package analysis
