package request

import (
	"fmt"
	"strings"

	"github.com/svmc/svmc/trace"
)

// Pos is a position in a request file: the file name (as given for the top
// file, as resolved for an included one), line and column, both from 1.
// Columns count bytes, as in Go.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// IsValid reports whether p is a position (Line >= 1).
func (p Pos) IsValid() bool { return p.Line >= 1 }

// Diagnostic is a positioned error or warning.
type Diagnostic struct {
	Pos Pos
	Msg string
}

// String is "file:line:col: message".
func (d Diagnostic) String() string { return d.Pos.String() + ": " + d.Msg }

func (d Diagnostic) Error() string { return d.String() }

// ErrorList is a list of diagnostics used as an error: one per line.
type ErrorList []Diagnostic

func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, d := range l {
		s[i] = d.String()
	}
	return strings.Join(s, "\n")
}

// Err returns l as an error, or nil if it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// File is a parsed trace request file.
type File struct {
	Name    string // as given, or as resolved for an included file
	Entries []Entry
}

// Entry is one entry of a file: *ConfigEntry, *Include or *Request.
type Entry interface {
	Pos() Pos // of the entry's keyword
	entry()
}

// ConfigEntry is "CONFIG <key>: <value>".
type ConfigEntry struct {
	At       Pos // of CONFIG
	Key      ConfigKey
	KeyPos   Pos
	Value    int64 // bytes for the buffer sizes, the stage number for SVM_TraceStage
	ValuePos Pos
}

// Include is "INCLUDE <file>". File is the included file once Load has read
// it (nil after Parse, or if it could not be read).
type Include struct {
	At      Pos // of INCLUDE
	Path    string
	PathPos Pos
	File    *File
}

// Request is "REQUEST [(<nodes>)] GLOBAL ..." or "REQUEST [(<nodes>)] LOCAL ...":
// exactly one of Global and Local is set.
type Request struct {
	At     Pos     // of REQUEST
	Nodes  []Range // nil: every processor
	Global *Global
	Local  *Local
	// Dropped is set by Check in lenient mode when the request names
	// something the program does not have; Compile skips it.
	Dropped bool
}

func (e *ConfigEntry) Pos() Pos { return e.At }
func (e *Include) Pos() Pos     { return e.At }
func (e *Request) Pos() Pos     { return e.At }
func (*ConfigEntry) entry()     {}
func (*Include) entry()         {}
func (*Request) entry()         {}

// Range is a number or a range of numbers "lo-hi" (a node or a region
// number); a single number has Lo == Hi.
type Range struct {
	Pos    Pos
	Lo, Hi int
}

// Ident is a name with its position: a function, label or variable name.
type Ident struct {
	Pos  Pos
	Name string
}

// Global is "GLOBAL <item>, ...".
type Global struct {
	At    Pos // of GLOBAL
	Items []GlobalItem
}

// GlobalItem is one word of a global request.
type GlobalItem struct {
	Pos  Pos
	Kind GlobalKind
}

// Local is "LOCAL <sub>.<region>: (<word>), ...".
type Local struct {
	At     Pos // of LOCAL
	Sub    SubSpec
	Region RegionSpec
	Words  []Word
}

// SubSpec names the subprograms of a local request.
type SubSpec struct {
	Pos  Pos
	Kind SubKind
	Name string // SubNamed: "F", or "T.M" for a method
}

// SubKind says how a local request names its subprograms.
type SubKind uint8

const (
	SubNamed SubKind = iota // a function or method by name
	SubMain                 // @MAIN: the main function
	SubAll                  // *: every subprogram
)

// RegionSpec names the regions of a local request within its subprograms.
type RegionSpec struct {
	Pos    Pos
	Kind   RegKind
	Labels []Ident // RegPDOLabel, RegLabel
	Nums   []Range // RegNo
}

// RegKind says how a local request names its regions.
type RegKind uint8

const (
	RegAll      RegKind = iota // *: every region, the subprogram (region 0) included
	RegPDOLabel                // PDO_LABEL(l, ...): the pdo loops with these labels
	RegLabel                   // REG_LABEL(l, ...): the regions with these labels
	RegNo                      // REG_NO(n, lo-hi, ...): the regions with these numbers
)

// Word is one request word of a local request, with its variable list (nil
// when none is written; only the SVMInfo page words take one).
type Word struct {
	Pos  Pos
	Kind WordKind
	Vars []Ident
}

// ConfigKey is a configuration parameter.
type ConfigKey uint8

const (
	ConfigTraceBufSize       ConfigKey = iota + 1 // SVM_TraceBuf_Size: bytes of a processor's trace buffer
	ConfigKernelTraceBufSize                      // SVM_Kernel_TraceBuf_Size: bytes of the kernel's trace buffer
	ConfigTraceStage                              // SVM_TraceStage: 0 to 6
	// ConfigThrottleCalls is svmc's: the calls after which a brief
	// subprogram stops being traced on a processor (the throttle_calls
	// parameter; 0 turns throttling off).
	ConfigThrottleCalls // SVM_Throttle_Calls
)

var configNames = [...]string{
	ConfigTraceBufSize:       "SVM_TraceBuf_Size",
	ConfigKernelTraceBufSize: "SVM_Kernel_TraceBuf_Size",
	ConfigTraceStage:         "SVM_TraceStage",
	ConfigThrottleCalls:      "SVM_Throttle_Calls",
}

func (k ConfigKey) String() string {
	if int(k) < len(configNames) && configNames[k] != "" {
		return configNames[k]
	}
	return fmt.Sprintf("ConfigKey(%d)", int(k))
}

// GlobalKind is a global request word.
type GlobalKind uint8

const (
	GlobalMappingInfo     GlobalKind = iota + 1 // variable, template and processor arrangement mapping
	GlobalTrOverhead                            // time spent tracing
	GlobalKernBufOverflow                       // overflows of the trace buffer
)

// GlobalInfo is one row of the global request table.
type GlobalInfo struct {
	Kind GlobalKind
	Name string // canonical spelling
	Tags []trace.Tag
}

// Globals is the table of global request words, indexed by kind.
var Globals = [...]GlobalInfo{
	GlobalMappingInfo: {GlobalMappingInfo, "MappingInfo", []trace.Tag{
		trace.TagTemplateInfo, trace.TagTemplateDist, trace.TagUndefTemplate, trace.TagDestroyTemplate,
		trace.TagProcArrangement, trace.TagVariableMapping}},
	GlobalTrOverhead:      {GlobalTrOverhead, "TrOverhead", []trace.Tag{trace.TagTraceOverhead}},
	GlobalKernBufOverflow: {GlobalKernBufOverflow, "KernBufOverflow", []trace.Tag{trace.TagKernelTraceBufferOverflow}},
}

func (k GlobalKind) String() string {
	if int(k) < len(Globals) && Globals[k].Name != "" {
		return Globals[k].Name
	}
	return fmt.Sprintf("GlobalKind(%d)", int(k))
}

// Group is the group of a local request word (seed 002, section 5).
type Group uint8

const (
	GroupSVM  Group = iota + 1 // SVMInfo: page events of the SVM kernel
	GroupSync                  // SyncInfo: synchronisation
	GroupLang                  // LangInfo: language constructs
)

var groupNames = [...]string{GroupSVM: "SVMInfo", GroupSync: "SyncInfo", GroupLang: "LangInfo"}

func (g Group) String() string {
	if int(g) < len(groupNames) && groupNames[g] != "" {
		return groupNames[g]
	}
	return fmt.Sprintf("Group(%d)", int(g))
}

// WordKind is a local request word.
type WordKind uint8

const (
	WordRPFSum       WordKind = iota + 1 // read page fault sums
	WordWPFSum                           // write page fault sums
	WordRPF                              // individual read page faults
	WordWPF                              // individual write page faults
	WordInvalCopy                        // invalidations
	WordPageTravel                       // page travel
	WordOwnPageDist                      // distribution of owned (writable) pages
	WordCurPageDist                      // distribution of copied (read-only) pages
	WordPageOut                          // paging out
	WordSVMOverhead                      // SVM runtime overhead
	WordAllSVM                           // *.SVMInfo: all of the above
	WordBarrier                          // barriers
	WordLock                             // locks
	WordWaitCritical                     // critical sections
	WordMsgInfo                          // message passing (svmc's word)
	WordAllSync                          // *.SyncInfo
	WordRegion                           // region start and stop
	WordPDOInfo                          // parallel loops
	WordSECTIONInfo                      // sections
	WordAPSInfo                          // active processor sets
	WordCoSwitch                         // coherence switches
	WordPrefetch                         // prefetches
	WordMeasure                          // measured intervals (Lib-DVM §9; svmc's word)
	WordVarCheck                         // checksums of shared variables at region exit (svmc's word, for svmc diff)
	WordAllLang                          // *.LangInfo
	numWords
)

// WordInfo is one row of the local request word table, which drives the
// parser (spelling, variable list), Check and Compile (records).
type WordInfo struct {
	Kind  WordKind
	Name  string // canonical spelling; "*.SVMInfo" for a group's All word
	Group Group
	All   bool // the group's "*.<Group>" word
	Vars  bool // takes a variable list
	Tags  []trace.Tag
}

// Words is the table of local request words, indexed by kind. The All
// words' Tags are the union of their group's.
var Words = func() [numWords]WordInfo {
	t := [numWords]WordInfo{
		WordRPFSum:       {Name: "RPFSum", Group: GroupSVM, Vars: true, Tags: tags(trace.TagReadPageFaultSum)},
		WordWPFSum:       {Name: "WPFSum", Group: GroupSVM, Vars: true, Tags: tags(trace.TagWritePageFaultSum)},
		WordRPF:          {Name: "RPF", Group: GroupSVM, Vars: true, Tags: tags(trace.TagReadPageFaultServiced)},
		WordWPF:          {Name: "WPF", Group: GroupSVM, Vars: true, Tags: tags(trace.TagWritePageFaultServiced)},
		WordInvalCopy:    {Name: "InvalCopy", Group: GroupSVM, Vars: true, Tags: tags(trace.TagInvalidateCopy, trace.TagReduceAccessPermission)},
		WordPageTravel:   {Name: "PageTravel", Group: GroupSVM, Vars: true, Tags: tags(trace.TagPageTravel)},
		WordOwnPageDist:  {Name: "OwnPageDist", Group: GroupSVM, Vars: true, Tags: tags(trace.TagOPageDist)},
		WordCurPageDist:  {Name: "CurPageDist", Group: GroupSVM, Vars: true, Tags: tags(trace.TagCPageDist)},
		WordPageOut:      {Name: "PageOut", Group: GroupSVM, Vars: true, Tags: tags(trace.TagPageOut)},
		WordSVMOverhead:  {Name: "SVMOverhead", Group: GroupSVM, Tags: tags(trace.TagSVMOverhead)},
		WordAllSVM:       {Name: "*.SVMInfo", Group: GroupSVM, All: true, Vars: true},
		WordBarrier:      {Name: "BARRIER", Group: GroupSync, Tags: tags(trace.TagWaitBarrierStart, trace.TagWaitBarrierStop, trace.TagBarrierCheckin, trace.TagWaitBCheckoutStart, trace.TagWaitBCheckoutStop)},
		WordLock:         {Name: "LOCK", Group: GroupSync, Tags: tags(trace.TagWaitLockStart, trace.TagWaitLockStop, trace.TagReleaseLock, trace.TagWaitMutexStart, trace.TagWaitMutexStop)},
		WordWaitCritical: {Name: "WaitCritical", Group: GroupSync, Tags: tags(trace.TagWaitCritSecStart, trace.TagWaitCritSecStop, trace.TagExitCritSec)},
		WordMsgInfo:      {Name: "MsgInfo", Group: GroupSync, Tags: tags(trace.TagMsgCallStart, trace.TagMsgCallStop, trace.TagMsgRequestDone)},
		WordAllSync:      {Name: "*.SyncInfo", Group: GroupSync, All: true},
		WordRegion:       {Name: "REGION", Group: GroupLang, Tags: tags(trace.TagTraceRegionStart, trace.TagTraceRegionStop, trace.TagTraceThrottled, trace.TagThrottledCalls)},
		WordPDOInfo:      {Name: "PDOInfo", Group: GroupLang, Tags: tags(trace.TagPDOInfo, trace.TagPDOIterationSpace, trace.TagPDOWork)},
		WordSECTIONInfo:  {Name: "SECTIONInfo", Group: GroupLang, Tags: tags(trace.TagSectionInfo)},
		WordAPSInfo:      {Name: "APSInfo", Group: GroupLang, Tags: tags(trace.TagAPSInfo)},
		WordCoSwitch:     {Name: "CoSwitch", Group: GroupLang, Tags: tags(trace.TagCoherenceSwitch)},
		WordPrefetch:     {Name: "Prefetch", Group: GroupLang, Tags: tags(trace.TagPrefetch)},
		WordMeasure:      {Name: "MEASURE", Group: GroupLang, Tags: tags(trace.TagMeasureStart, trace.TagMeasureFinish)},
		WordVarCheck:     {Name: "VarCheck", Group: GroupLang, Vars: true, Tags: tags(trace.TagVarCheck)},
		WordAllLang:      {Name: "*.LangInfo", Group: GroupLang, All: true},
	}
	for k := WordKind(1); k < numWords; k++ {
		t[k].Kind = k
	}
	for k := WordKind(1); k < numWords; k++ {
		if !t[k].All {
			continue
		}
		for j := WordKind(1); j < numWords; j++ {
			// VarCheck checksums whole variables at every region exit:
			// it is asked for by name only.
			if t[j].Group == t[k].Group && !t[j].All && j != WordVarCheck {
				t[k].Tags = append(t[k].Tags, t[j].Tags...)
			}
		}
	}
	return t
}()

func tags(t ...trace.Tag) []trace.Tag { return t }

func (k WordKind) String() string {
	if k >= 1 && k < numWords {
		return Words[k].Name
	}
	return fmt.Sprintf("WordKind(%d)", int(k))
}
