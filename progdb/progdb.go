// Package progdb is the program information file of svmc (DESIGN.md §5): the
// numbering of subprograms, directives, trace regions and shared variables
// with their source positions. The compiler writes it next to the
// instrumented code and embeds it in the binary, so that a trace can be
// analysed without the sources. Standard library only.
package progdb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/svmc/svmc/internal/limits"
)

// Version is the format version this package writes. It reads this one and
// version 1, which lacked the structured fields of a directive (Site,
// ImplicitBarrier, End, Schedule, Loops, Reductions, Formats, With,
// Templates): Unmarshal derives Site and ImplicitBarrier of a version 1 file
// from the kind and leaves the others empty.
const Version = 2

// FileName is the name of the program information file in a compile output.
const FileName = "svminfo.json"

// Program is the whole program information file.
type Program struct {
	Version int    `json:"version"`
	Tool    string `json:"tool"`    // "svmc"
	Package string `json:"package"` // import path of the compiled package (a directory in no module and outside GOPATH: the directory)
	Name    string `json:"name"`    // package name
	// Files are the package's Go files, relative to the package directory,
	// sorted: the order that numbers the subprograms.
	Files       []string      `json:"files"`
	Subprograms []*Subprogram `json:"subprograms"`
	// Calls are the message-passing call sites (rtlib.Send, Recv, ...,
	// Request.Wait), numbered from 1 in file and source order; records
	// name them by number ("call site").
	Calls []*Call `json:"calls,omitempty"`
	// MutexSites are the statements that lock a sync.Mutex or RWMutex of
	// the program's own (Func "Mutex.Lock", "RWMutex.Lock",
	// "RWMutex.RLock" or "Locker.Lock", through a sync.Locker), numbered from 1 in file and source order; the
	// wait-mutex records name them by number ("mutex site").
	MutexSites []*Call `json:"mutex_sites,omitempty"`
	// Accesses are the element accesses of shared variables that carry
	// the SVM layer's check (a[i], a[i][j]), numbered from 1 in file and
	// source order; page-fault records name them by number ("instruction
	// address").
	Accesses []*Access `json:"accesses,omitempty"`
	// Segments say how the storage of each shared variable is kept in
	// the SVM layer's segments of pages, in the order of the shared
	// directives. A segment's number and address exist only at run time
	// (given in the order storage is first shared); the trace's
	// segment-variable and shared-segment-address records tie each to the
	// variable listed here.
	Segments []*Segment `json:"segments,omitempty"`
}

// Segment is the segments of one shared variable's storage: one for the
// storage its shared directive names (the array, or the slice's backing
// array), and one per row for a slice of slices.
type Segment struct {
	VarSub    int    `json:"var_sub"` // the subprogram whose shared directive names it
	Var       int    `json:"var"`     // its number there (Subprogram.Shared)
	Name      string `json:"name"`
	Storage   string `json:"storage"`        // "array", "pointer to array", "slice" or "slice of slices"
	Rows      bool   `json:"rows,omitempty"` // each row is a segment of its own
	ElemSize  int64  `json:"elem_size"`      // of the innermost element
	Directive int    `json:"directive"`      // the shared directive (number in VarSub)
	Pos       Pos    `json:"pos"`            // of the directive
}

// Access is one checked access of a shared variable.
type Access struct {
	Num    int    `json:"num"`
	Sub    int    `json:"sub"`     // the subprogram holding it
	Var    int    `json:"var"`     // the variable's number (Subprogram.Shared of VarSub)
	VarSub int    `json:"var_sub"` // the subprogram whose shared directive names it
	Name   string `json:"name"`
	Write  bool   `json:"write,omitempty"`
	Pos    Pos    `json:"pos"`
}

// Access returns access n, or nil.
func (p *Program) Access(n int) *Access {
	if p == nil || n < 1 || n > len(p.Accesses) {
		return nil
	}
	return p.Accesses[n-1]
}

// Call is one message-passing call site.
type Call struct {
	Num  int    `json:"num"`
	Func string `json:"func"`          // "Send", ..., "Request.Wait"
	Sub  int    `json:"sub,omitempty"` // the subprogram holding it; 0 outside every subprogram
	Pos  Pos    `json:"pos"`
}

// Call returns call site n, or nil.
func (p *Program) Call(n int) *Call {
	if p == nil || n < 1 || n > len(p.Calls) {
		return nil
	}
	return p.Calls[n-1]
}

// MutexSite returns mutex site n, or nil.
func (p *Program) MutexSite(n int) *Call {
	if p == nil || n < 1 || n > len(p.MutexSites) {
		return nil
	}
	return p.MutexSites[n-1]
}

// Pos is a source position; File is relative to the package directory.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Subprogram is a function or method of the package. Number 1 is the first
// function of the first file; numbering follows the source order.
type Subprogram struct {
	Num  int    `json:"num"`
	Name string `json:"name"` // "F", or "T.M" for methods
	Pos  Pos    `json:"pos"`
	Main bool   `json:"main,omitempty"`
	// Plain: svmc left it as written, small enough for the Go compiler to
	// inline (svmc build --instrument-all instruments it): it has no
	// region, and no record names it.
	Plain      bool         `json:"plain,omitempty"`
	Directives []*Directive `json:"directives"`
	// Regions are the trace regions of the subprogram. Region 0 is the
	// subprogram itself; the others follow in textual order.
	Regions []*Region `json:"regions"`
	Shared  []*Var    `json:"shared,omitempty"`
}

// Directive is one //svm: directive, numbered from 1 in textual order within
// its subprogram. Tools read its structured fields; Text is for people.
type Directive struct {
	Num  int    `json:"num"`
	Kind string `json:"kind"` // the keyword ("pdo", "barrier", ...)
	// Site is what analysis tools treat the directive as: one of the Site*
	// constants.
	Site string `json:"site"`
	Text string `json:"text"`
	Pos  Pos    `json:"pos"`
	// End is the position of the //svm:end that closes an end-form
	// construct; nil when the construct is the one statement after it.
	End *Pos `json:"end,omitempty"`
	// ImplicitBarrier: the construct ends with a barrier of the processors
	// that ran it, whose wait records carry the directive's numbers.
	ImplicitBarrier bool   `json:"implicit_barrier,omitempty"`
	Label           string `json:"label,omitempty"` // pdo label(...), trace_region or critical name
	// Template and Procs name the template and processor arrangement a
	// directive declares or uses (for a distribute, the first template).
	Template string `json:"template,omitempty"`
	Procs    string `json:"procs,omitempty"`
	// Templates, Formats and With describe a distribute or redistribute:
	// the templates it distributes, one format per dimension, or the
	// template they are distributed with.
	Templates []string `json:"templates,omitempty"`
	Formats   []string `json:"formats,omitempty"`
	With      string   `json:"with,omitempty"`
	// Loops, Schedule and Reductions describe a pdo: its loop variables
	// (outermost first), how its iterations are scheduled, and its
	// reductions.
	Loops      []string    `json:"loops,omitempty"`
	Schedule   *Schedule   `json:"schedule,omitempty"`
	Reductions []Reduction `json:"reductions,omitempty"`
	// Vars classifies the variables of a parallel body (pdo only).
	Vars *VarClasses `json:"vars,omitempty"`
}

// Site kinds (Directive.Site).
const (
	SiteMapping  = "mapping"  // processors, template, distribute, redistribute, create, destroy, undef
	SiteLoop     = "loop"     // pdo
	SiteSections = "sections" // psection
	SiteSection  = "section"  // section of a psection
	SiteBarrier  = "barrier"  // explicit barrier
	SiteCheckin  = "checkin"  // barrier_checkin
	SiteCheckout = "checkout" // barrier_checkout
	SiteCritical = "critical" // critical section
	SiteLock     = "lock"     // lock(vars)
	SiteAtomic   = "atomic"   // atomic update: its lock records have no release
	SiteMode     = "mode"     // replicated or exclusive region
	SiteRegion   = "region"   // user trace region
	SiteEnd      = "end"      // //svm:end
	SiteSVM      = "svm"      // shared, coherence, prefetch
	SiteIgnore   = "ignore"   // ignore: a warning suppressed, no code
)

// Sites lists the site kinds.
var Sites = []string{SiteMapping, SiteLoop, SiteSections, SiteSection, SiteBarrier, SiteCheckin, SiteCheckout,
	SiteCritical, SiteLock, SiteAtomic, SiteMode, SiteRegion, SiteEnd, SiteSVM, SiteIgnore}

// Schedule is how a pdo's iterations are scheduled.
type Schedule struct {
	// Strategy is one of the Strategy* constants.
	Strategy string `json:"strategy"`
	// Home is the template element of on_home: "T(i, j+1)".
	Home string `json:"home,omitempty"`
	// Formats are the loop-level formats, one per loop: "block",
	// "cyclic", "cyclic(k)".
	Formats []string `json:"formats,omitempty"`
	// Chunk is the chunk size of dynamic or guided as written ("" default).
	Chunk string `json:"chunk,omitempty"`
	// Procs is the arrangement of processors(P).
	Procs string `json:"procs,omitempty"`
	// Record is the template of template(T) that records a dynamic
	// decision as its distribution.
	Record string `json:"record,omitempty"`
}

// Scheduling strategies (Schedule.Strategy).
const (
	StrategyDefault   = "default" // no strategy clause: block over the active processors
	StrategyOnHome    = "on_home"
	StrategyLoopLevel = "loop_level"
	StrategyDynamic   = "dynamic"
	StrategyGuided    = "guided"
	StrategyAffinity  = "affinity"
)

// String says the schedule as a person would write it: "block (default)",
// "on_home(T(i, j))", "cyclic(2) onto P", "dynamic(4) recorded in T".
func (s *Schedule) String() string {
	if s == nil {
		return "?"
	}
	var out string
	switch s.Strategy {
	case StrategyDefault:
		out = "block (default)"
	case StrategyOnHome:
		out = "on_home(" + s.Home + ")"
	case StrategyLoopLevel:
		for i, f := range s.Formats {
			if i > 0 {
				out += ", "
			}
			out += f
		}
	case StrategyDynamic, StrategyGuided:
		out = s.Strategy
		if s.Chunk != "" {
			out += "(" + s.Chunk + ")"
		}
	default:
		out = s.Strategy
	}
	if s.Procs != "" {
		out += " onto " + s.Procs
	}
	if s.Record != "" {
		out += " recorded in " + s.Record
	}
	return out
}

// Reduction is one operator of a pdo's reduction clauses with its
// variables.
type Reduction struct {
	Op   string   `json:"op"` // + * min max & | ^ && ||
	Vars []string `json:"vars"`
}

// VarClasses is the dataflow classification of the variables a parallel body
// uses. Names are sorted.
type VarClasses struct {
	Shared    []string `json:"shared,omitempty"`
	Private   []string `json:"private,omitempty"`
	Reduction []string `json:"reduction,omitempty"` // "op:name"
}

// Region is a trace region. Type is the name of trace.Region* ("subroutine",
// "pdo", "user", ...); Code is the number written in trace records.
type Region struct {
	Num       int    `json:"num"`
	Type      string `json:"type"`
	Code      int    `json:"code"`
	Label     string `json:"label,omitempty"`
	Parent    int    `json:"parent"`    // region number of the enclosing region; -1 for region 0
	Directive int    `json:"directive"` // directive that opens it; 0 for the subprogram
	Pos       Pos    `json:"pos"`
	End       Pos    `json:"end"`
}

// Var is a shared variable, numbered from 1 within its subprogram.
type Var struct {
	Num      int    `json:"num"`
	Name     string `json:"name"`
	Type     string `json:"type"`
	ElemSize int64  `json:"elem_size"`
	Pos      Pos    `json:"pos"`
	// Checked: every access of its storage is an access check (nothing
	// ranges over it, copies it or takes it out of the package), so
	// between the ranks of an MPI job its pages may be kept lazily,
	// fetched from their home when a check finds them stale.
	Checked bool `json:"checked,omitempty"`
}

// Marshal encodes p deterministically (indented JSON, trailing newline).
func Marshal(p *Program) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Read decodes a program information file and rejects versions it does not
// know. name is used in error messages.
func Read(r io.Reader, name string) (*Program, error) {
	data, err := limits.ReadAll(r, limits.ProgramInfo, name, "a program information file")
	if err != nil {
		return nil, err
	}
	return Unmarshal(data, name)
}

// Unmarshal is Read for bytes in memory.
func Unmarshal(data []byte, name string) (*Program, error) {
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: not a program information file: %v", name, err)
	}
	if head.Version == nil {
		return nil, fmt.Errorf("%s: not a program information file: no version", name)
	}
	if *head.Version != Version && *head.Version != 1 {
		return nil, fmt.Errorf("%s: program information file version %d is not supported (this svmc reads versions 1 and %d); use the svmc that compiled the program", name, *head.Version, Version)
	}
	var p Program
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if p.Version == 1 {
		upgradeV1(&p)
	}
	return &p, nil
}

// v1Sites are the site kinds of the directive kinds version 1 knew.
var v1Sites = map[string]string{
	"processors": SiteMapping, "template": SiteMapping, "distribute": SiteMapping, "redistribute": SiteMapping,
	"create": SiteMapping, "destroy": SiteMapping, "undef": SiteMapping,
	"pdo": SiteLoop, "psection": SiteSections, "section": SiteSection,
	"barrier": SiteBarrier, "barrier_checkin": SiteCheckin, "barrier_checkout": SiteCheckout,
	"critical": SiteCritical, "lock": SiteLock, "atomic": SiteAtomic,
	"replicated": SiteMode, "exclusive": SiteMode, "trace_region": SiteRegion, "end": SiteEnd,
	"shared": SiteSVM, "coherence": SiteSVM, "prefetch": SiteSVM,
}

// upgradeV1 fills what version 2 derives from a directive's kind. The
// schedule of a pdo stays nil (unknown): it was only in the text.
func upgradeV1(p *Program) {
	for _, s := range p.Subprograms {
		for _, d := range s.Directives {
			d.Site = v1Sites[d.Kind]
			switch d.Kind {
			case "pdo", "psection", "replicated", "exclusive":
				d.ImplicitBarrier = true
			}
		}
	}
}

// Sub returns subprogram num, or nil (also of a nil Program).
func (p *Program) Sub(num int) *Subprogram {
	if p == nil {
		return nil
	}
	if num >= 1 && num <= len(p.Subprograms) && p.Subprograms[num-1].Num == num {
		return p.Subprograms[num-1]
	}
	for _, s := range p.Subprograms {
		if s.Num == num {
			return s
		}
	}
	return nil
}

// SubName is the name reports give subprogram num: its Go name, or for
// number 0 (the program region of a binary whose main svmc did not number:
// the main go test generates) the test binary's name, "pkg.test"; "sub N"
// without program information.
func (p *Program) SubName(num int) string {
	if s := p.Sub(num); s != nil {
		return s.Name
	}
	if num == 0 && p != nil && p.Name != "" {
		return p.Name + ".test"
	}
	return "sub " + strconv.Itoa(num)
}

// Directive returns directive num of the subprogram, or nil.
func (s *Subprogram) Directive(num int) *Directive {
	if num >= 1 && num <= len(s.Directives) && s.Directives[num-1].Num == num {
		return s.Directives[num-1]
	}
	return nil
}

// SubByName returns the subprogram with the given name ("F" or "T.M"), or nil.
func (p *Program) SubByName(name string) *Subprogram {
	for _, s := range p.Subprograms {
		if s.Name == name {
			return s
		}
	}
	return nil
}
