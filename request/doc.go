// Package request is the trace request file of svmc (seed 002, section 5;
// DESIGN.md §4): what a run traces, chosen without recompiling. It parses
// the file (Parse, Load), checks its names against the program information
// file (Check), compiles it into the table the runtime consults on its hot
// path (Compile, Table), and writes files back (Format, and builders for
// tools). It is linked into every instrumented program and imports only the
// standard library, progdb and trace.
//
// # Syntax
//
// The grammar in EBNF (Go's spec notation; keywords in capitals):
//
//	File          = { Entry } .
//	Entry         = Config | Include | Request .  // each starts a new line
//	Config        = "CONFIG" ( "SVM_TraceBuf_Size" ":" Size
//	                         | "SVM_Kernel_TraceBuf_Size" ":" Size
//	                         | "SVM_TraceStage" ":" Stage
//	                         | "SVM_Throttle_Calls" ":" decimal ) .  // svmc's: throttle_calls
//	Size          = decimal [ "k" | "K" | "m" | "M" | "g" | "G" ] .  // no blank before the suffix
//	Stage         = "0" … "6" .
//	Include       = "INCLUDE" FileName .     // on the same line
//	FileName      = quoted | bare .          // a Go "string", or a run of non-blank characters
//	Request       = "REQUEST" [ "(" NodeList ")" ] ( GlobalReq | LocalReq ) .
//	NodeList      = NumRange { "," NumRange } .
//	NumRange      = decimal [ "-" decimal ] .
//	GlobalReq     = "GLOBAL" GlobalWord { "," GlobalWord } .
//	GlobalWord    = "MappingInfo" | "TrOverhead" | "KernBufOverflow" .
//	LocalReq      = "LOCAL" SubName "." RegIdent ":" LocalReqList .
//	SubName       = name [ "." name ] | "@MAIN" | "*" .
//	RegIdent      = "PDO_LABEL" "(" name { "," name } ")"
//	              | "REG_LABEL" "(" name { "," name } ")"
//	              | "REG_NO" "(" NumRange { "," NumRange } ")"
//	              | "*" .
//	LocalReqList  = "(" Word { "," Word } ")" { "," "(" Word { "," Word } ")" } .
//	Word          = SVMInfo | SyncInfo | LangInfo .
//	SVMInfo       = ( "RPFSum" | "WPFSum" | "RPF" | "WPF" | "InvalCopy" | "PageTravel"
//	              | "OwnPageDist" | "CurPageDist" | "PageOut" | "*" "." "SVMInfo" ) [ VarList ]
//	              | "SVMOverhead" .
//	SyncInfo      = "BARRIER" | "LOCK" | "WaitCritical" | "MsgInfo" | "*" "." "SyncInfo" .  // MsgInfo: svmc's
//	LangInfo      = "REGION" | "PDOInfo" | "SECTIONInfo" | "APSInfo" | "CoSwitch"
//	              | "Prefetch" | "MEASURE" | "VarCheck" [ VarList ]
//	              | "*" "." "LangInfo" .   // MEASURE, VarCheck: svmc's, not the seed's
//	VarList       = "[" name { "," name } "]" .
//	name          = letter { letter | digit } .  // a Go identifier; '_' is a letter
//
// Lexical rules, where the seed is silent:
//
//   - Keywords (everything quoted above but names) are case-insensitive;
//     names of functions, labels and variables are case-sensitive.
//   - Blanks, tabs and line ends separate tokens. Each entry starts on a new
//     line and may go on over several lines (after a ',', for instance); a
//     token after a complete entry on the same line is an error.
//   - The seed leaves <Comment> undefined: here a '#' or '!' where a token
//     could start begins a comment that runs to the end of the line, so
//     both whole-line and trailing comments work. In a bare INCLUDE file
//     name they are part of the name unless they start it.
//   - Sizes are bytes; k/K, m/M and g/G multiply by 1024, 1024² and 1024³.
//     A size must be positive.
//   - A SubName is a Go function name "F" or method "T.M" as the program
//     information file has it (progdb Subprogram.Name), @MAIN the main
//     function, * every subprogram.
//   - Two extensions of the seed's LocalReqList: one pair of parentheses
//     may hold several words, "(REGION, PDOInfo)" = "(REGION), (PDOInfo)";
//     REG_NO takes ranges like node lists, "REG_NO(1, 3-5)". Format writes
//     one word per parentheses.
//   - A node list of a range lo-hi needs lo <= hi. Node and region numbers
//     go up to 2³¹-1; nodes beyond the run's processors are an error of
//     Compile, which knows how many there are.
//   - A CONFIG parameter set more than once keeps its last value (Check
//     warns); an included file's entries count at the place of its INCLUDE.
//   - At most 50 errors are reported per file, and 1000 INCLUDEs followed.
//
// # Errors
//
// Every error is "file:line:col: message", the file as given (as resolved,
// for an included one), columns in bytes. A file's errors are reported
// together: a syntax error abandons its entry and parsing resumes at the
// next line starting with an entry keyword. A near-miss keyword gets a
// suggestion: `unknown request word "PDOInf"; did you mean "PDOInfo"?`.
// INCLUDE paths are relative to the including file's directory; a file that
// includes itself, directly or not, is an error naming the chain
// ("include cycle: a.req -> b.req -> a.req").
//
// # Semantics
//
// Every record tag of the catalogue has a bit in a Mask (MaskOf). What a
// processor traces at a point of the run is the union of
//
//   - the stage: SVM_TraceStage s enables StageMask(s), the records whose
//     trace.Stage is at most s (seed 002, Table 2); a file that sets no
//     stage enables no stage records, and the runtime may add its own
//     default stage;
//   - the GLOBAL requests listing the processor (all of them without a
//     node list), everywhere:
//     MappingInfo = template-info, template-dist, undef-template,
//     destroy-template, proc-arrangement, variable-mapping;
//     TrOverhead = trace-overhead; KernBufOverflow =
//     kernel-trace-buffer-overflow;
//   - the LOCAL requests listing the processor, while it is inside a region
//     they name, including everything executed inside it: nested regions
//     and called subprograms.
//
// Requests only add records. A region is identified at run time by
// (subprogram number, region number), region 0 being the subprogram itself
// (progdb Regions). PDO_LABEL(l) names the pdo regions labelled l (progdb:
// the region's directive is a pdo with Label l), REG_LABEL(l) every region
// labelled l (a trace_region's name, a pdo's label, ...) and the innermost
// region holding each critical section named l, REG_NO(n) region n
// (0 = the subprogram), * every region of the subprogram. With SubName *
// a label or number names the matching regions of every function.
//
// The words of a LOCAL request enable (the table Words holds this):
//
//	REGION        trace-region-start, trace-region-stop
//	PDOInfo       pdo-info, pdo-iteration-space, pdo-work
//	SECTIONInfo   section-info
//	APSInfo       aps-info
//	CoSwitch      coherence-switch
//	Prefetch      prefetch
//	BARRIER       wait-barrier-start/stop, barrier-checkin, wait-bcheckout-start/stop
//	LOCK          wait-lock-start/stop, release-lock
//	WaitCritical  wait-crit-sec-start/stop, exit-crit-sec
//	RPFSum        read-page-fault-sum
//	WPFSum        write-page-fault-sum
//	RPF           read-page-fault-serviced
//	WPF           write-page-fault-serviced
//	InvalCopy     invalidate-copy, reduce-access-permission
//	PageTravel    page-travel
//	OwnPageDist   o-page-dist
//	CurPageDist   c-page-dist
//	PageOut       page-out
//	SVMOverhead   svm-overhead-start
//	VarCheck      var-check (checksums of the shared variables, or of those listed, at the region's exits; for svmc diff)
//	*.<Group>     all the words of the group (*.LangInfo without VarCheck, which is asked for by name)
//
// shared-segment-address is enabled by stage 6 only. A variable list
// names shared variables of the subprogram (progdb Subprogram.Shared; with
// SubName *, of any subprogram) and restricts the page records of its word
// in that region to them (Table.Vars), as the runtime's SVM layer writes
// them.
//
// Check resolves the names: an unknown function, label, region number or
// variable is an error, or with lenient a warning that drops the request.
//
// # The runtime's side
//
//	t, err := request.Compile(f, prog, nprocs) // after Check, which may drop requests
//	mask := t.Base(node)                       // when the processor starts
//	inner := t.Enter(node, sub, region, mask)  // entering a subprogram (region 0) or region
//	if inner.Has(trace.TagPDOInfo) { ... }     // at a record site; or inner&bit != 0
//	// on leaving the region, go back to mask
//
// Enter is three bounds-checked loads and an OR, with no allocation.
//
// # Example
//
//	# trace regions everywhere, the Jacobi sweep in detail on processors 0-1
//	CONFIG SVM_TraceStage: 1
//	CONFIG SVM_TraceBuf_Size: 256K
//	INCLUDE common.req
//	REQUEST GLOBAL MappingInfo, TrOverhead
//	REQUEST (0-1) LOCAL main.PDO_LABEL(sweep): (PDOInfo), (BARRIER)
//	REQUEST LOCAL Grid.Update.*: (*.SyncInfo),
//	        (RPFSum[a, b])
//	REQUEST LOCAL @MAIN.REG_NO(0): (APSInfo)
package request
