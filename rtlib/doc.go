// Package rtlib is the runtime of svmc-instrumented programs. Generated code
// imports it as svm_rt and calls the API fixed in the contract (see
// briefs/rtlib_api.md of the project); this comment records how the runtime
// behaves where the contract leaves room.
//
// # Processors and the team
//
// Run (and Main, which reads its parameters from the environment) starts N
// processor goroutines that live until the program ends. Processor 0 is the
// leader of the active processor set (APS) and runs the program body in
// exclusive mode; the other members wait for work. A PDO or a Barrier issued
// by the leader is dispatched to the members by bumping the APS's epoch
// counter (the task is published in plain fields before the atomic add). A
// waiting member spins on the counter for a few dozen loads, then yields
// (runtime.Gosched) a bounded number of times, then blocks on its own wake
// channel; the dispatcher wakes only members that announced they sleep. The
// barrier is a centralised counter with a generation word and the same
// bounded spin/yield/block wait, where the yielding rounds adapt to the
// waits seen (up to 256 rounds, when every processor has a CPU). No
// goroutine is started per construct and a PDO allocates nothing. Long spins
// were measured to lose on the 2-CPU machines svmc targets (the processor
// waited for is often not running), so the spin stays short; see
// BenchmarkPDOForkJoin and BenchmarkBarrier.
//
// Only one level of APS exists now: the whole team. The aps type holds the
// leader, the members, the dispatch word, the barrier and the implicit 1-D
// arrangement, so that parallel sections can later form APSs of their own. A
// PDO reached inside a PDO body (or on a goroutine rtlib did not start, see
// Current) runs all its iterations on the calling processor.
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
// Each processor appends records to its own trace.Buf. Every record is
// guarded by a comparison of the run's stage with the record's stage (seed
// 002, Table 2; trace.Stage), made before anything is built, so stage 0 costs
// one branch per event site. Clocks are microseconds since Run started. A
// buffer that reaches the buffer size (SVM_TraceBuf_Size, default 1 MiB) is
// written through the trace.Writer and followed by kernel-trace-buffer-overflow
// and trace-overhead (duration of the write, trace.OverheadFlush), both
// stamped with the time the flush began. Every processor, not only the
// leader, opens the program region when it starts and closes it when it
// stops, so each node's records nest under one root. APS-global records
// (pdo-info, aps-info, pdo-iteration-space, template-info, template-dist,
// proc-arrangement, undef-template, destroy-template) are written by the
// leader; template-dist holds one record per processor of the APS, each with
// that processor's node id, all in the leader's buffer.
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
// A panic on a processor becomes a *PanicError naming the processor, the value
// and the first stack frame outside rtlib and the Go runtime. In both cases
// the other processors are stopped at their next safe point (dispatch wait,
// barrier wait, PDO or barrier entry) with a bounded wait, the buffers of the
// processors that stopped are written and the trace is closed. Main prints
// "svmc: " and the error on stderr and exits with status 2.
package rtlib
