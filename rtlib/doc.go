// Package rtlib is the runtime of svmc-instrumented programs. Generated code
// imports it as svm_rt and calls the methods of Proc and the functions below
// (codegen writes the calls; the golden files under golden/ show them); this
// comment records how the runtime behaves where the API leaves room.
//
// # Processors and the team
//
// Run (and Main, which reads its parameters from the environment) starts N
// processor goroutines that live until the program ends. Processor 0 is the
// leader of the active processor set (APS) and runs the program body in
// exclusive mode; the other members wait for work. A PDO or a Barrier issued
// by the leader is dispatched to the members by bumping the APS's epoch
// counter (the task is published in plain fields before the atomic add). A
// waiting member spins on the counter (about a microsecond, 1 024 loads,
// when every processor has a CPU; a few dozen loads when not), then yields
// (runtime.Gosched) a bounded number of times, then blocks on its own wake
// channel; the dispatcher wakes only members that announced they sleep. The
// barrier is a centralised counter with a generation word and the same
// bounded spin/yield/block wait. The yielding rounds of both waits adapt to
// the waits seen (up to 256 rounds, when every processor has a CPU): a
// wait woken within 100 µs of blocking (the wake-up of a blocked thread
// alone takes 16-30 µs on a virtual machine) doubles them. No
// goroutine is started per construct and a PDO allocates nothing. Long spins
// were measured to lose on the 2-CPU machines svmc targets where processors
// outnumber CPUs (the processor waited for is often not running), so the
// spin stays short there and under a microsecond otherwise, where a yield
// costs as much as the wait it interrupts; see BenchmarkPDOForkJoin,
// BenchmarkBarrier and BenchmarkEPCC_BARRIER.
//
// # Execution modes and active processor sets
//
// Every Proc has a mode. In exclusive mode only the leader of its APS runs
// user code and the other members wait in serveAPS for the tasks the leader
// dispatches (PDO, barrier, replicated region, parallel section, "leave");
// in replicated mode every member runs the same code. Replicated dispatches
// the region from exclusive mode (or just runs it in replicated mode) and
// ends with the implicit barrier; Exclusive in replicated mode lets the
// leader run its body in exclusive mode while the others serve the APS,
// then all meet at the implicit barrier. A PDO reached in replicated mode
// is worksharing: with the default and the dynamic schedules every member
// sets up its own share at once; for on_home and loop-level schedules the
// members wait for the leader's schedule (a dispatch). Its barrier is
// released by the leader (aps.gather/release) after it combined the
// reductions, so every member reads the result. A PDO the leader
// dispatches from exclusive mode ends with the implicit barrier, or, when
// nothing observes the members' waits there (no trace, statistics or SVM
// layer, one process: run.quickJoin), with the leader waiting for their
// arrivals alone (aps.join): they wait for its next dispatch anyway. The
// leader reads the members' Iters after the loop only when one of them
// left partial results or a panic (aps.folds), and rewrites the nest they
// read only when it changed: each saves a cache line's round trip between
// processors at every loop. A task is acknowledged by
// each member once it has copied what it needs; the leader waits for the
// acknowledgements only when a task may still be open (it dispatched again
// without a barrier in between, as in a replicated region), so a slow member
// never skips a task.
//
// PSection forms one APS per section (see its documentation for how the
// processors are shared); the child APSs of a PSECTION are kept by the
// parent's leader and reused while their processors stay the same. A
// processor takes part in its sections in section order; the leader of a
// section's APS (lowest pid) runs the body in exclusive mode and dissolves
// the APS (taskLeave) when it returns; the members then go back to the
// parent, where every member waits at the psection's barrier. The per-member
// state of an APS (its Iter, the epoch it consumed, its barrier site, its
// affinity queue and split-barrier counts) lives in the APS's member slots,
// so a processor in two overlapping APSs never has one APS's leader write
// the state it uses in the other. A PDO reached inside a PDO body (or on a
// goroutine rtlib did not start, see Current) runs all its iterations on the
// calling processor; so do sections and regions there.
//
// # Synchronisation
//
// Barriers in replicated mode, or inside a PDO body, are real barriers of
// the APS; every arrival records its site (sub, dir and kind: barrier, end
// of pdo, psection, replicated or exclusive region). Members at different
// sites are not let through: the run stops with "processors reached
// different barriers:" and one line per site. (Each arrival adds a 32-bit
// hash of its site to the arrival word, so agreement costs nothing extra in
// the common case; disagreement is missed only if the hashes collide.) The
// k-th BarrierCheckout of a member waits until every member checked in k
// times; from exclusive mode the leader checks in and out for the idle
// members. Critical sections (one lock per name for the run), LOCK
// variables (one lock per start address, taken in address order,
// duplicates once) and the stripes of atomic updates without hardware
// support are rtLocks: a compare-and-swap, a short spin, then registration
// as a waiter and the bounded spin/yield/block wait; an unlock wakes the
// registered waiters, which race for the lock. A Proc caches the locks it
// used, so a directive executed again takes no run-wide mutex. AtomicAdd is
// a hardware add for 4- and 8-byte integers and a compare-and-swap loop for
// floats and complex64; AtomicUpdate is a compare-and-swap loop for those
// types (its function may run more than once) and runs under a stripe lock
// otherwise (int8/16, complex128, non-numeric types: the function runs once).
//
// # Dynamic scheduling
//
// Dynamic, Guided and Affinity number the iterations of the nest
// lexicographically and hand out chunks of consecutive numbers: from a
// counter of the APS (one atomic add per chunk; Guided a compare-and-swap),
// or from per-member queues (Affinity: one word per member holding lo and
// end; the owner takes ceil(remaining/M) from the front, an idle member
// steals the back half of the largest queue). The leader resets the shared
// state after the PDO's barrier. Record(T) makes every member log its
// chunks; after the barrier the leader turns the logs into T's distribution
// (runs of element numbers and their owners: iteration counts (c_1..c_r)
// own T(lo_1+c_1, ..., lo_r+c_r)), writes template-dist for every member,
// and later on_home schedules over T use it (a schedule over elements owned
// by processors outside the APS gives them to member pid mod M).
//
// # Deadlock detection
//
// A processor that blocks in a wait of the runtime (barrier, checkout,
// lock, critical section, atomic stripe, waiting for work or for the
// leader) first publishes what it waits for: its site and a state word with
// a sequence number (three atomic stores, only on the blocking path). A
// watchdog goroutine per run looks every d/2 (d: Params.Deadlock,
// SVMC_DEADLOCK_MS, default 500 ms, 0 off); when every processor is blocked,
// none has a wake-up pending, and no state changed over three looks (so for
// at least d), it stops the run with "deadlock: no processor can proceed"
// and one line per processor. A processor running user code (even one
// blocked outside the runtime) keeps the watchdog quiet. All waits of the
// runtime are abortable, so the trace of a deadlocked run is complete.
//
// # Schedules
//
// With the default schedule every member computes its own block of the
// outermost loop. For on_home and loop-level schedules the leader computes,
// per member, the owned values of every loop (for each arrangement element
// on the member, the intersection over the template dimensions of the owned
// index runs, shifted by the subscript offsets and mapped into iteration
// counts) as a union of boxes, turned into a tree that Iter walks in
// lexicographic order. Only IndexFunc subscripts fall back to testing the
// owner of every candidate iteration. The result is kept per PDO directive
// and reused while the template's distribution (or the arrangement and
// formats), the subscripts and the nest are unchanged.
//
// # Tracing
//
// Each processor appends records to its own trace.Buf. What it records is a
// mask of record kinds (request.Mask): the run compiles the trace request
// file (package request; the stage alone without one) once at start into a
// table; a processor starts with the table's base mask (the stage's records
// and the GLOBAL requests listing it) and, at every region entry (program,
// subroutine through Enter, pdo, psection, section, replicated, exclusive,
// user RegionStart), takes the table's mask inside that region, restored at
// the region's exit. Every record site tests one bit of it (on) before
// building anything, so stage 0 costs one branch per site. An instrumented
// function tests Trace first (a load and a branch when nothing can be
// traced; a countdown once its subprogram is throttled, throttle.go) and
// only a call that is traced takes the traced entry (entries.go: Enter, a
// deferred Exit, the body again), so the body holds no defer and small
// functions keep their speed. With LOCAL requests the
// region stack is kept even at stage 0 (a push and pop of a small struct,
// no record). A region's own start and stop records are tested against the
// mask inside it. A member running a task of the leader (a PDO share, a
// barrier) also takes the LOCAL requests of the regions the leader was in
// when it dispatched the task, so a request on a region covers its loops on
// every processor.
//
// Clocks are microseconds since Run started (runtime.nanotime). A
// processor's records fill chunks of 256 KiB (SVM_TraceBuf_Size if that is
// smaller); a full chunk is handed to the run's writer goroutine, which
// writes it unchecked (trace.Writer.WriteTrusted) and hands it back. The
// processor goes on with a chunk given back, or a new one while its chunks
// at the writer hold less than SVM_TraceBuf_Size (default 1 MiB), and
// waits only when they hold that much (no lock is shared between
// processors). After the swap it records
// kernel-trace-buffer-overflow and trace-overhead (the time it was held up,
// trace.OverheadFlush), stamped with the time the buffer was found full,
// each if its mask has it. After every record a processor publishes its
// buffer's length (one atomic store), so that when the run ends while a
// processor is still running (it did not reach a safe point within
// StopWait) the runtime seals it and writes its records up to the last one
// it completed: the trace ends with every record written so far after a
// normal end, a user error, a panic, a deadlock, SIGINT or SIGTERM (Main).
// The last record of every trace is trace-end: how the run ended, the
// processors that had not stopped and the records that could not be
// written (-1 if unknown: a processor stuck in a hand-over). Every
// processor, not only the leader, opens the program region when it starts
// and closes it when it stops, so each node's records nest under one root.
// APS-global records (pdo-info, aps-info, pdo-iteration-space,
// template-info, template-dist, proc-arrangement, undef-template,
// destroy-template) are written by the leader; template-dist holds one
// record per processor of the APS, each with that processor's node id, all
// in the leader's buffer.
//
// # Parameters and output
//
// Main reads the run-time parameters (package rtlib/internal/params has
// the table: nprocs,
// trace, format, stage, request, lenient, tracebuf, kernel_tracebuf,
// stats, stdout, stderr, info, keep_old, stop_wait, deadlock_ms) from, in
// increasing precedence, their defaults, the request file's CONFIG entries,
// the environment (SVMC_<NAME>), the parameter file (SVMC_PARAMS) and the
// flags of svmc run (SVMC_FLAG_<NAME>); SVMC_PRINT_PARAMS=1 prints them with
// their sources (PrintParams). The user program's output goes through
// Proc.Stdout and Proc.Stderr: processor 0's and what any processor runs
// alone, a pdo's iterations or a section (default: the other copies of
// replicated code print nothing), every processor to its own file (a name pattern with %d)
// or all to one stream or file (each Write whole); the runtime's
// informational messages go to stderr, stdout, a file or nowhere.
//
// # Measured intervals, sizes and statistics
//
// MeasureStart / MeasureFinish (package functions for any code, methods for
// code with the Proc) nest per processor and write measure-start (level,
// name) and measure-finish (level, name, elapsed microseconds) at stage 1.
// Template.LocalSize, Procs.LocalSize, LoopSize and LoopLocalSize answer
// the size queries of seed 000 §10.
//
// With statistics on (Params.Stats, SVMC_STATS=1) every processor charges
// its time to an element [caller group][group] of the interval matrix of
// the measured interval it is in (GroupNames, Lib-DVM's groups of seed 000
// §11.1.1 where svmc has the function, trace.StatGroups: UserGrp,
// MsgPasGrp, StartRedGrp (ReduceInto), WaitRedGrp (a member waiting for the
// leader's fold in replicated mode), RedGrp (the fold), DistrGrp,
// ReDistrGrp (distributing a distributed template), MapPLGrp (PDO), DoPLGrp
// (the next portion of a self-scheduled loop), IOGrp (user output),
// UserDebGrp (tracing), StatistGrp (measured intervals), and svmc's SyncGrp
// (barriers, locks, critical sections) and SectGrp (parallel sections,
// replicated regions); the caller is the group the user program called,
// the group the one whose code runs; the UserGrp row counts the calls the
// user program made directly, per processor). A
// call made by k processors for the same purpose (a PDO, a barrier: k is
// the size of the APS) counts 1/k call, its own time t adds t/k productive
// and (k-1)t/k lost time (seed 000's (n-1)/n rule); waiting for other
// processors (barrier waits) is lost time, waiting for work (a member while
// the leader runs exclusive code) idle time. Intervals the APS leader opens
// in exclusive mode are the whole team's: the others' time is split over
// the intervals the leader was in meanwhile; intervals opened in a PDO
// body are the opening processor's. Intervals of the same name in the same
// enclosing interval are merged; the figures of an interval include those
// of the intervals nested in it. At the end of the run, per interval
// (interval 0 is the program) stat-interval gives the summary
// characteristics of seed 000 §11.1.3 (execution time: the longest
// processor's wall time in it, the whole run for the program; processor
// time = processors x execution time; the user program's own productive
// and lost time; the runtime's productive and lost time; productive = user
// + runtime productive; lost likewise; idle; runtime calls made directly by
// the user program; efficiency = productive / processor time) and
// stat-group every non-empty matrix element. Without a trace they are
// printed to the informational messages.
//
// # Record fields chosen by svmc
//
//   - template-dist "owned indices" is an [rows][2*rank] int array: each row
//     is a box of template indices lo_1,hi_1,lo_2,hi_2,... (inclusive) that
//     the processor owns. It is the inverse form seed 002 proposes,
//     compressed to boxes: for every arrangement element mapped onto the
//     processor, in column-major order of the elements, the product of the
//     runs of owned indices of each template dimension, lexicographically
//     (first dimension outermost). BLOCK×BLOCK thus gives one row per owning
//     arrangement element, CYCLIC(k) one row per block of k.
//   - pdo-info "proc arrangement id" is 0 for the implicit 1-D arrangement of
//     the APS (default schedule, loop-level schedule without processors(P),
//     distribution onto the APS); "proc arrangement shape" is then
//     [[0, M-1]] for an APS of M members. "block cyclic length" has one entry
//     per loop of a loop-level schedule: 0 block, k cyclic(k), -1 not
//     distributed, -2 general_block, -3 indirect; it is empty for other
//     schedules. "startup time microseconds" is the time the leader spent
//     computing the schedules of all members.
//   - pdo-iteration-space has one row of 9 per loop: min(lo,hi,step),
//     max(lo,hi,step), increment(lo,hi,step), with hi inclusive. The runtime
//     receives rectangular nests only, so min = max and the increments are 0.
//   - variable-mapping rows are [number, addr>>32, addr&0xffffffff] (the low
//     half is stored as a 32-bit two's complement int).
//   - wait-lock-start "locking address" has one row [start_hi, start_lo,
//     end_hi, end_lo] per variable, in address order, where end is the
//     address of the variable's last byte and each address is split like
//     variable-mapping's. ATOMIC updates write the row of their variable.
//   - pdo-work (#2001) is written by every member of the APS at the end of
//     its part of every PDO (and by the processor of a serial PDO): the
//     iterations it ran and the microseconds from its region start to its
//     arrival at the implicit barrier; its clock is that arrival.
//   - section-info "proc arrangement id" is the arrangement of the
//     section's processors(P) clause with P's extents, or 0 and no rows.
//
// # Templates and distributions
//
// Template and arrangement ids are numbered per run from 1 in creation order
// (a creatable template gets its id where it is declared). Extents are lo:hi
// inclusive. Per distributed template dimension (the k-th maps onto
// arrangement dimension k): BLOCK uses block size ceil(n/p); CYCLIC(k) gives
// offset o to coordinate (o/k) mod p; GENERAL_BLOCK(sizes) needs p sizes >= 0
// summing to the extent; INDIRECT(owner) needs one entry per index whose
// value is an index of the arrangement dimension (within its lo:hi);
// `*` is not distributed. The owner of a template element is the arrangement
// element at those coordinates, and arrangement element with column-major
// linear index L lives on processor L mod N. DistributeWith copies the
// current distribution of the base template (shapes, i.e. extent sizes, must
// be equal; indices correspond by offset); redistributing the base later does
// not move the linked template.
//
// # Errors
//
// Errors the user causes at run time stop the run with an *Error whose text
// is "file:line:col: [processor K: ]message", positioned at the directive.
// A panic in a pdo's iteration or a section is first taken by the
// construct (bodypanic.go): the construct ends on every member and the panic
// is raised again after it where the code around it runs, so that a deferred
// recover there takes it as in the serial program. A panic nobody recovers
// becomes a *PanicError naming the processor, the value and the first stack
// frame outside rtlib and the Go runtime (of the iteration, for a panic
// raised again after a construct). In both cases
// the other processors are stopped at their next safe point (any wait of
// the runtime, the entry of a construct, the grab of a dynamic chunk) with
// a bounded wait, the buffers of the
// processors that stopped are written and the trace is closed. Main prints
// "svmc: " and the error on stderr and exits with status 2.
package rtlib
