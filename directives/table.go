package directives

import (
	"fmt"
	"strings"

	sug "github.com/svmc/svmc/internal/suggest"
)

// Kind is the kind of a directive, named by its keyword.
type Kind int

// The directive kinds, in the order of DESIGN.md §2.
const (
	Processors Kind = iota
	Template
	Distribute
	Redistribute
	Create
	Destroy
	Undef
	PDO
	PSection
	Section
	Barrier
	BarrierCheckin
	BarrierCheckout
	Critical
	Lock
	Atomic
	Replicated
	Exclusive
	TraceRegion
	End
	Shared
	Coherence
	Prefetch
	numKinds
)

// Info describes one directive kind: one row of Table.
type Info struct {
	Kind    Kind
	Keyword string // lower case; the source may use any case
	// OpensConstruct: the directive applies to the one statement that follows it.
	OpensConstruct bool
	// EndForm: the construct may instead be closed by //svm:end <keyword>
	// later in the same statement list.
	EndForm bool
	// NeedsLoop: the statement that follows must be a for statement.
	NeedsLoop bool
}

// Table has one row per directive kind; Table[k].Kind == k. Parsing, the
// compiler's placement checks and its rewriting are driven by it.
var Table = []Info{
	//                       opens  end    loop
	{Processors, "processors", false, false, false},
	{Template, "template", false, false, false},
	{Distribute, "distribute", false, false, false},
	{Redistribute, "redistribute", false, false, false},
	{Create, "create", false, false, false},
	{Destroy, "destroy", false, false, false},
	{Undef, "undef", false, false, false},
	{PDO, "pdo", true, false, true},
	{PSection, "psection", true, false, false},
	{Section, "section", true, false, false},
	{Barrier, "barrier", false, false, false},
	{BarrierCheckin, "barrier_checkin", false, false, false},
	{BarrierCheckout, "barrier_checkout", false, false, false},
	{Critical, "critical", true, true, false},
	{Lock, "lock", true, false, false},
	{Atomic, "atomic", true, false, false},
	{Replicated, "replicated", true, true, false},
	{Exclusive, "exclusive", true, true, false},
	{TraceRegion, "trace_region", true, true, false},
	{End, "end", false, false, false},
	{Shared, "shared", false, false, false},
	{Coherence, "coherence", false, false, false},
	{Prefetch, "prefetch", false, false, false},
}

// Lookup returns the table row of k (the zero Info but for Kind if k is not a kind).
func Lookup(k Kind) Info {
	if k < 0 || int(k) >= len(Table) {
		return Info{Kind: k}
	}
	return Table[k]
}

func (k Kind) String() string {
	if kw := Lookup(k).Keyword; kw != "" {
		return kw
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// kindOf maps a lower-case keyword to its kind.
var kindOf = func() map[string]Kind {
	m := make(map[string]Kind, len(Table))
	for _, in := range Table {
		m[in.Keyword] = in.Kind
	}
	return m
}()

// keywords returns the keywords of the kinds for which keep is true.
func keywords(keep func(Info) bool) []string {
	var kw []string
	for _, in := range Table {
		if keep(in) {
			kw = append(kw, in.Keyword)
		}
	}
	return kw
}

// suggest returns `; did you mean "x"?` for the candidate closest to word,
// or "" when none is close.
func suggest(word string, candidates []string) string {
	best := sug.Closest(strings.ToLower(word), candidates, false)
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}
