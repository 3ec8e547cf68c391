package directives

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	sug "github.com/svmc/svmc/internal/suggest"
	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
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
	Ignore
	numKinds
)

// Info describes one directive kind: one row of Table, the construct
// registry. Everything the pipeline must know about a kind that is not code
// is here; the code lives in one handler per kind and layer (the argument
// parser below, the compiler's check and program information, codegen's
// generator), and each layer has a test that fails, naming the kind, when its
// handler is missing (in the spirit of OPARI2, whose missing handler is a
// link error).
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
	// InParallelBody: the directive may stand in the body of a pdo, where
	// it acts on the one processor running the iteration. Any other
	// directive there is an error.
	InParallelBody bool
	// Exclusive: the statements the construct covers run under mutual
	// exclusion, so that a write to a shared variable there is meant.
	Exclusive bool
	// Region is the trace region type (trace.Region*) of the region the
	// construct opens, or NoRegion.
	Region int
	// Site is what the analysis tools treat the directive as (progdb.Site*),
	// written into the program information file.
	Site string
	// ImplicitBarrier: the construct ends with a barrier of the processors
	// that ran it (its wait-barrier records carry the construct's numbers).
	ImplicitBarrier bool
	// Records are the trace records the construct writes (seed 002 Table 1,
	// with svmc's additions), besides those of the regions it opens.
	Records []trace.Tag
}

// NoRegion is Info.Region of a directive that opens no trace region.
const NoRegion = -1

// Table has one row per directive kind; Table[k].Kind == k. Parsing, the
// compiler's placement checks and its rewriting are driven by it.
var Table = []Info{
	{Kind: Processors, Keyword: "processors", Region: NoRegion, Site: progdb.SiteMapping,
		Records: tags(trace.TagProcArrangement)},
	{Kind: Template, Keyword: "template", Region: NoRegion, Site: progdb.SiteMapping,
		Records: tags(trace.TagTemplateInfo)},
	{Kind: Distribute, Keyword: "distribute", Region: NoRegion, Site: progdb.SiteMapping,
		Records: tags(trace.TagTemplateDist)},
	{Kind: Redistribute, Keyword: "redistribute", Region: NoRegion, Site: progdb.SiteMapping,
		Records: tags(trace.TagTemplateDist)},
	{Kind: Create, Keyword: "create", Region: NoRegion, Site: progdb.SiteMapping,
		Records: tags(trace.TagTemplateInfo)},
	{Kind: Destroy, Keyword: "destroy", Region: NoRegion, Site: progdb.SiteMapping,
		Records: tags(trace.TagDestroyTemplate)},
	{Kind: Undef, Keyword: "undef", Region: NoRegion, Site: progdb.SiteMapping,
		Records: tags(trace.TagUndefTemplate)},
	{Kind: PDO, Keyword: "pdo", OpensConstruct: true, NeedsLoop: true,
		Region: trace.RegionPDO, Site: progdb.SiteLoop, ImplicitBarrier: true,
		Records: tags(trace.TagPDOInfo, trace.TagAPSInfo, trace.TagTemplateDist, trace.TagPDOWork,
			trace.TagWaitBarrierStart, trace.TagWaitBarrierStop, trace.TagPDOIterationSpace)},
	{Kind: PSection, Keyword: "psection", OpensConstruct: true,
		Region: trace.RegionPSection, Site: progdb.SiteSections, ImplicitBarrier: true,
		Records: tags(trace.TagWaitBarrierStart, trace.TagWaitBarrierStop)},
	{Kind: Section, Keyword: "section", OpensConstruct: true,
		Region: trace.RegionSection, Site: progdb.SiteSection,
		Records: tags(trace.TagSectionInfo, trace.TagAPSInfo)},
	{Kind: Barrier, Keyword: "barrier", Region: NoRegion, Site: progdb.SiteBarrier,
		Records: tags(trace.TagWaitBarrierStart, trace.TagWaitBarrierStop)},
	{Kind: BarrierCheckin, Keyword: "barrier_checkin", Region: NoRegion, Site: progdb.SiteCheckin,
		Records: tags(trace.TagBarrierCheckin)},
	{Kind: BarrierCheckout, Keyword: "barrier_checkout", Region: NoRegion, Site: progdb.SiteCheckout,
		Records: tags(trace.TagWaitBCheckoutStart, trace.TagWaitBCheckoutStop)},
	{Kind: Critical, Keyword: "critical", OpensConstruct: true, EndForm: true, InParallelBody: true, Exclusive: true,
		Region: NoRegion, Site: progdb.SiteCritical,
		Records: tags(trace.TagWaitCritSecStart, trace.TagWaitCritSecStop, trace.TagExitCritSec)},
	{Kind: Lock, Keyword: "lock", OpensConstruct: true, InParallelBody: true, Exclusive: true,
		Region: NoRegion, Site: progdb.SiteLock,
		Records: tags(trace.TagWaitLockStart, trace.TagWaitLockStop, trace.TagReleaseLock)},
	{Kind: Atomic, Keyword: "atomic", OpensConstruct: true, InParallelBody: true, Exclusive: true,
		Region: NoRegion, Site: progdb.SiteAtomic,
		Records: tags(trace.TagWaitLockStart, trace.TagWaitLockStop)},
	{Kind: Replicated, Keyword: "replicated", OpensConstruct: true, EndForm: true,
		Region: trace.RegionReplicated, Site: progdb.SiteMode, ImplicitBarrier: true,
		Records: tags(trace.TagWaitBarrierStart, trace.TagWaitBarrierStop)},
	{Kind: Exclusive, Keyword: "exclusive", OpensConstruct: true, EndForm: true,
		Region: trace.RegionExclusive, Site: progdb.SiteMode, ImplicitBarrier: true,
		Records: tags(trace.TagWaitBarrierStart, trace.TagWaitBarrierStop)},
	{Kind: TraceRegion, Keyword: "trace_region", OpensConstruct: true, EndForm: true, InParallelBody: true,
		Region: trace.RegionUser, Site: progdb.SiteRegion},
	{Kind: End, Keyword: "end", InParallelBody: true, Region: NoRegion, Site: progdb.SiteEnd},
	{Kind: Shared, Keyword: "shared", InParallelBody: true, Region: NoRegion, Site: progdb.SiteSVM,
		Records: tags(trace.TagVariableMapping)},
	{Kind: Coherence, Keyword: "coherence", Region: NoRegion, Site: progdb.SiteSVM},
	{Kind: Prefetch, Keyword: "prefetch", Region: NoRegion, Site: progdb.SiteSVM},
	{Kind: Ignore, Keyword: "ignore", InParallelBody: true, Region: NoRegion, Site: progdb.SiteIgnore},
}

func tags(t ...trace.Tag) []trace.Tag { return t }

// Lookup returns the table row of k (the zero Info but for Kind and
// Region NoRegion if k is not a kind).
func Lookup(k Kind) *Info {
	if k < 0 || int(k) >= len(Table) {
		return &Info{Kind: k, Region: NoRegion}
	}
	return &Table[k]
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
// or, when none is close, for the one candidate of which word is a part
// between underscores (//svm:trace for trace_region, //svm:checkin for
// barrier_checkin); "" otherwise.
func suggest(word string, candidates []string) string {
	w := strings.ToLower(word)
	if h := sug.DidYouMean(w, candidates, false); h != "" {
		return h
	}
	var parts []string
	for _, c := range candidates {
		if strings.Contains(c, "_") && slices.Contains(strings.Split(c, "_"), w) {
			parts = append(parts, c)
		}
	}
	if len(parts) == 1 {
		return "; did you mean " + strconv.Quote(parts[0]) + "?"
	}
	return ""
}
