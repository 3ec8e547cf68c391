package directives

import (
	"fmt"
	"go/ast"
	"go/token"
)

// Pos is a source position: Filename, Offset, Line, Column (1-based, bytes).
type Pos = token.Position

// Directive is one parsed //svm: comment.
type Directive struct {
	Kind Kind
	Pos  Pos    // of the "//svm:"
	Text string // the comment text, "//svm:..."
	// Bad reports that the directive had errors; its payload may be incomplete.
	Bad bool

	// The payload: at most one of these is non-nil, chosen by Kind. Kinds
	// without arguments (psection, barrier*, atomic, replicated, exclusive)
	// have none; Critical may have none (unnamed).
	Processors *ProcessorsDir
	Template   *TemplateDir
	Distribute *DistributeDir // Distribute and Redistribute
	Create     *CreateDir
	Name       *Name // Destroy, Undef, Critical (nil: unnamed), TraceRegion
	PDO        *PDODir
	Section    *SectionDir
	Lock       *LockDir
	End        *EndDir
	Shared     *SharedDir
	Coherence  *CoherenceDir
	Prefetch   *PrefetchDir
	Ignore     *IgnoreDir
}

// IgnoreDir is `ignore race: reason`: the warnings of that check on the
// next line are suppressed, and listed with the reason.
type IgnoreDir struct {
	Check  Name
	Reason string
}

// Label is the name that labels the construct: a pdo's label(...), the name
// of a trace_region or of a critical section ("" for none).
func (d *Directive) Label() string {
	switch {
	case d.PDO != nil && d.PDO.Label != nil:
		return d.PDO.Label.Name
	case (d.Kind == TraceRegion || d.Kind == Critical) && d.Name != nil:
		return d.Name.Name
	}
	return ""
}

// Name is a Go identifier written in a directive.
type Name struct {
	Name string
	Pos  Pos
}

// Expr is a Go expression written in a directive.
type Expr struct {
	Text string // as written, without surrounding blanks
	Pos  Pos    // of its first byte
	// X is the parsed expression, nil if it has a syntax error. Its token.Pos
	// values are positions in the FileSet given to ParseFile; from Parse they
	// are 1 + the byte offset in the directive's Text.
	X ast.Expr
}

// Dim is one dimension of a processor arrangement or template:
// `e` (Size), `lo:hi` (Lo, Hi; inclusive) or `:` (Colon: creatable, rank only).
type Dim struct {
	Size, Lo, Hi *Expr
	Colon        bool
	Pos          Pos // of the dimension's first byte
}

// ProcessorsDir is `processors P(dims)`.
type ProcessorsDir struct {
	Name Name
	Dims []Dim
}

// TemplateDir is `template T(dims)`; Creatable when every dim is ':'.
type TemplateDir struct {
	Name      Name
	Dims      []Dim
	Creatable bool
}

// FormatKind is a distribution format.
type FormatKind int

const (
	Block FormatKind = iota
	Cyclic
	GeneralBlock
	Indirect
	Star // not distributed
)

var formatNames = [...]string{"block", "cyclic", "general_block", "indirect", "*"}

func (k FormatKind) String() string { return enumString(formatNames[:], int(k), "FormatKind") }

// Format is one distribution format: block, cyclic, cyclic(k) (Arg k),
// general_block(sizes), indirect(owner) or *.
type Format struct {
	Kind FormatKind
	Arg  *Expr
	Pos  Pos
}

// String is the format as written: block, cyclic, cyclic(k),
// general_block(sizes), indirect(owner) or *.
func (f Format) String() string {
	if f.Arg == nil {
		return f.Kind.String()
	}
	return f.Kind.String() + "(" + f.Arg.Text + ")"
}

// DistributeDir is either `distribute (formats) [onto P] :: T1, T2` (Formats,
// Onto, Templates) or `distribute T1, T2 with T` (Templates, With).
type DistributeDir struct {
	Redistribute bool
	Formats      []Format
	Onto         *Name
	With         *Name
	Templates    []Name
}

// CreateDir is `create T(dims)`.
type CreateDir struct {
	Name Name
	Dims []Dim
}

// StrategyKind is a pdo scheduling strategy.
type StrategyKind int

const (
	OnHome    StrategyKind = iota // on_home(T(subs))
	LoopLevel                     // block, cyclic, cyclic(k) per loop
	Dynamic                       // dynamic[(k)]
	Guided                        // guided[(k)]
	Affinity                      // affinity
)

var strategyNames = [...]string{"on_home", "loop-level", "dynamic", "guided", "affinity"}

func (k StrategyKind) String() string { return enumString(strategyNames[:], int(k), "StrategyKind") }

// Strategy is the argument of a pdo's strategy(...) clause.
type Strategy struct {
	Kind     StrategyKind
	Pos      Pos
	Template *Name    // OnHome
	Subs     []*Expr  // OnHome: on_home(T(i, j+1))
	Formats  []Format // LoopLevel: one per loop, Block or Cyclic
	Chunk    *Expr    // Dynamic, Guided: dynamic(k); nil if absent
}

// ReduceOp is a reduction operator.
type ReduceOp int

const (
	Add    ReduceOp = iota // +
	Mul                    // *
	Min                    // min
	Max                    // max
	And                    // &
	Or                     // |
	Xor                    // ^
	LogAnd                 // && (Go's bool "and": & is not defined on bool)
	LogOr                  // ||
)

var reduceNames = [...]string{"+", "*", "min", "max", "&", "|", "^", "&&", "||"}

func (op ReduceOp) String() string { return enumString(reduceNames[:], int(op), "ReduceOp") }

// Reduction is `op: v1, v2` inside reduction(...).
type Reduction struct {
	Op    ReduceOp
	OpPos Pos
	Vars  []Name
}

// PDODir is `pdo` with its clauses; Loops is outermost first. Without
// loops(...) the pdo is the one loop that follows, whatever its variable
// (or none: for _, v := range s, for range n); the compiler fills Loops in.
type PDODir struct {
	Label      *Name
	Loops      []Name
	Processors *Name
	Strategy   *Strategy
	Reductions []Reduction
	Template   *Name
}

// SectionDir is `section [processors(P)]` or `section processors(P(2:3))`:
// Part, when present, is a section of the arrangement P (one subscript per
// dimension: an index, lo:hi, or ':' for all of it), as HPF writes them.
type SectionDir struct {
	Processors *Name
	Part       []Dim
}

// LockDir is `lock(a, b[i])`.
type LockDir struct {
	Vars []*Expr
}

// EndDir is `end critical [name]`, `end trace_region [name]`,
// `end replicated` or `end exclusive`.
type EndDir struct {
	What    Kind
	WhatPos Pos
	Name    *Name
}

// SharedDir is `shared a, b`.
type SharedDir struct {
	Vars []Name
}

// CoherenceDir is `coherence(strategy) :: a, b`.
type CoherenceDir struct {
	Strategy Name
	Vars     []Name
}

// PrefetchDir is `prefetch a[lo:hi], b`.
type PrefetchDir struct {
	Refs []*Expr
}

func enumString(names []string, i int, typ string) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("%s(%d)", typ, i)
}
