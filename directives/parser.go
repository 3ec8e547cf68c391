package directives

import (
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"slices"
	"strings"
)

const prefix = "//svm:"

// IsDirective reports whether a comment text is a directive: it begins
// exactly "//svm:" ("// svm:" and "/* //svm: */" are ordinary comments).
func IsDirective(text string) bool { return strings.HasPrefix(text, prefix) }

// Parse parses one comment text, which must start with "//svm:"; pos is the
// position of its first '/'. The directive is nil only if the text is not a
// directive or has no known keyword; it is marked Bad if there are errors.
func Parse(text string, pos Pos) (*Directive, ErrorList) {
	return parse(text, pos, 1)
}

// ParseFile parses every //svm: line comment of f (which must have been
// parsed with parser.ParseComments), in source order, and returns all the
// errors of the file, sorted. Directives with errors are included, marked
// Bad. The expression trees of the directives have positions in fset.
func ParseFile(fset *token.FileSet, f *ast.File) ([]*Directive, ErrorList) {
	var ds []*Directive
	var errs ErrorList
	for _, g := range f.Comments {
		for _, c := range g.List {
			if !IsDirective(c.Text) {
				continue
			}
			d, e := parse(c.Text, fset.Position(c.Slash), c.Slash)
			if d != nil {
				ds = append(ds, d)
			}
			errs = append(errs, e...)
		}
	}
	errs.Sort()
	return ds, errs
}

// parser parses one directive. Like cmd/compile's syntax parser it reports
// errors through one handler and keeps going: a syntax error abandons the
// directive (or, in a pdo, only the clause) by a bailout panic, while errors
// that leave the structure intact (a bad Go expression, a duplicate clause)
// are only recorded.
type parser struct {
	src   string    // the comment text
	pos   Pos       // position of src[0]
	base  token.Pos // token.Pos of src[0], for expression trees
	ctx   string    // keyword of the directive, prefixed to messages
	kwOff int       // offset of the keyword
	errs  ErrorList

	// lexer state
	off    int     // next unread byte
	tok    tokKind // current token
	lit    string  // its text
	tokOff int     // its offset
}

type bailout struct{}

func parse(text string, pos Pos, base token.Pos) (*Directive, ErrorList) {
	p := &parser{src: text, pos: pos, base: base}
	if !IsDirective(text) {
		p.errorAt(0, "not a directive: a directive begins with %q", prefix)
		return nil, p.errs
	}
	p.off = len(prefix)
	p.next()
	var d *Directive
	p.try(func() {
		if p.tok != tName {
			p.fail("expected directive keyword")
		}
		k, ok := kindOf[strings.ToLower(p.lit)]
		if !ok {
			p.unknown("directive", keywords(func(Info) bool { return true }))
		}
		d = &Directive{Kind: k, Pos: pos, Text: text}
		p.ctx = Table[k].Keyword
		p.kwOff = p.tokOff
		p.next()
		if f := parsers[k]; f != nil {
			f(p, d)
		} else {
			p.errorAt(p.kwOff, "svmc internal error: no parser for %s directives", k)
		}
		if p.tok != tEOF {
			p.fail("expected end of directive")
		}
	})
	if d != nil {
		d.Bad = len(p.errs) > 0
	}
	return d, p.errs
}

// parsers holds the argument parser of each kind (noArgs for the kinds
// without arguments); TestParsers checks that every kind has one.
var parsers = map[Kind]func(p *parser, d *Directive){
	Processors:      parseProcessors,
	Template:        parseTemplate,
	Distribute:      parseDistribute,
	Redistribute:    parseDistribute,
	Create:          parseCreate,
	Destroy:         parseName("template name"),
	Undef:           parseName("template name"),
	PDO:             parsePDO,
	PSection:        noArgs,
	Section:         parseSection,
	Barrier:         noArgs,
	BarrierCheckin:  noArgs,
	BarrierCheckout: noArgs,
	Critical:        parseCritical,
	Lock:            parseLock,
	Atomic:          noArgs,
	Replicated:      noArgs,
	Exclusive:       noArgs,
	TraceRegion:     parseName("region name"),
	End:             parseEnd,
	Shared:          parseShared,
	Coherence:       parseCoherence,
	Prefetch:        parsePrefetch,
	Ignore:          parseIgnore,
}

// noArgs parses the arguments of a kind that takes none: the directive
// must end after its keyword.
func noArgs(*parser, *Directive) {}

// ---- error handling

func (p *parser) posAt(off int) Pos {
	pos := p.pos
	pos.Offset += off
	pos.Column += off
	return pos
}

func (p *parser) report(pos Pos, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.ctx != "" {
		msg = p.ctx + ": " + msg
	}
	p.errs = append(p.errs, &Error{Pos: pos, Msg: msg})
}

func (p *parser) errorAt(off int, format string, args ...any) {
	p.report(p.posAt(off), format, args...)
}

// fail reports "<msg>, found <token>" at the current token and bails out.
func (p *parser) fail(msg string) {
	found := "end of directive"
	if p.tok != tEOF {
		found = fmt.Sprintf("%q", p.lit)
	}
	p.errorAt(p.tokOff, "%s, found %s", msg, found)
	panic(bailout{})
}

// unknown reports the current word as an unknown <what> and bails out.
// An OpenMP word gets svmc's way of saying it rather than the nearest
// spelling (schedule is not a misspelt strategy).
func (p *parser) unknown(what string, candidates []string) {
	hint := suggest(p.lit, candidates)
	if h, ok := openMP[what+" "+strings.ToLower(p.lit)]; ok {
		hint = "; " + h
	} else if w := strings.ToLower(p.lit); what == "clause" && slices.Contains(strategyWords, w) {
		// //svm:pdo dynamic(2): a schedule without its clause.
		hint = fmt.Sprintf("; a schedule is the strategy clause's: strategy(%s(k)) or strategy(%s)", w, w)
		switch w {
		case "block", "affinity":
			hint = fmt.Sprintf("; a schedule is the strategy clause's: strategy(%s)", w)
		case "on_home":
			hint = "; a schedule is the strategy clause's: strategy(on_home(T(i)))"
		}
	}
	p.errorAt(p.tokOff, "unknown %s %q%s", what, p.lit, hint)
	panic(bailout{})
}

// openMP says how svmc writes what an OpenMP programmer reaches for (and
// an HPF or DVM programmer: ON, NEW, INDEPENDENT).
var openMP = map[string]string{
	"clause on":               "HPF's ON HOME(T(i)) and DVM's ON T(i) are written strategy(on_home(T(i))): iteration i runs on the processor that owns T(i)",
	"clause new":              "DVM's NEW(v): variables declared inside the loop body are private to each iteration; declare them there",
	"clause independent":      "a pdo's iterations are independent by what it says (HPF's INDEPENDENT): loops(i) is all it needs",
	"clause schedule":         "svmc writes OpenMP's schedule(kind, k) as strategy(kind(k)): strategy(dynamic(4)), strategy(guided(2)), strategy(cyclic(2))",
	"clause static":           "OpenMP's static schedule is strategy(block), static with a chunk k strategy(cyclic(k))",
	"clause private":          "variables declared inside the loop body are private to each iteration; declare them there",
	"clause firstprivate":     "variables declared inside the loop body are private to each iteration; declare them there, initialised from the outer one",
	"clause lastprivate":      "svmc has no lastprivate: compute the last iteration's value after the loop, or keep it in a shared variable",
	"clause shared":           "every variable declared outside the loop is shared by the processors; //svm:shared is a directive of its own, for the SVM layer",
	"clause collapse":         "loops(i, j) names every loop of the nest the pdo distributes",
	"clause nowait":           "a pdo ends with an implicit barrier; split work that needs none into psection sections",
	"clause num_threads":      "the number of processors is chosen at run time (svmc run -n N); processors(P) runs the loop on an arrangement",
	"clause ordered":          "svmc has no ordered loops: collect per-iteration results into a slice and use them in order after the loop",
	"directive parallel":      "svmc has no parallel region directive: //svm:pdo is a parallel loop by itself (DVM's PARALLEL (i) ON T(i) is //svm:pdo loops(i) strategy(on_home(T(i)))), //svm:replicated runs a block on every processor",
	"construct do":            "a pdo is the loop that follows it and ends with that loop: delete this line",
	"directive shadow":        "svmc needs no shadow edges (DVM's SHADOW, ACROSS): the processors share memory, so a pdo body reads its neighbours' elements as they are; with --mpi, //svm:shared variables travel between ranks by pages",
	"directive across":        "svmc needs no shadow edges (DVM's SHADOW, ACROSS): the processors share memory, so a pdo body reads its neighbours' elements as they are; with --mpi, //svm:shared variables travel between ranks by pages",
	"directive remote_access": "svmc needs no remote access directive (DVM's REMOTE_ACCESS): the processors share memory; with --mpi, //svm:shared variables travel between ranks by pages",
	"directive align":         "svmc has no align directive: a template distributed with another follows its distribution (//svm:distribute T2 with T1), and strategy(on_home(T(i))) runs a loop's iterations where T's elements are",
	"directive for":           "OpenMP's for is //svm:pdo loops(i)",
	"directive do":            "OpenMP's do is //svm:pdo loops(i)",
	"directive single":        "OpenMP's single is //svm:exclusive (the leader runs the block)",
	"directive master":        "OpenMP's master is //svm:exclusive (the leader runs the block)",
	"directive sections":      "OpenMP's sections is //svm:psection with //svm:section blocks",
}

// try runs f and reports whether it finished without bailing out.
func (p *parser) try(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, isBailout := r.(bailout); !isBailout {
				panic(r)
			}
			ok = false
		}
	}()
	f()
	return true
}

// ---- tokens

func (p *parser) expect(t tokKind, what string) {
	if p.tok != t {
		p.fail("expected " + what)
	}
	p.next()
}

// word reports whether the current token is the keyword kw (any case).
func (p *parser) word(kw string) bool {
	return p.tok == tName && strings.EqualFold(p.lit, kw)
}

func (p *parser) name(what string) Name {
	if p.tok != tName {
		p.fail("expected " + what)
	}
	n := Name{Name: p.lit, Pos: p.posAt(p.tokOff)}
	p.next()
	return n
}

func (p *parser) namePtr(what string) *Name {
	n := p.name(what)
	return &n
}

// names parses name { "," name }.
func (p *parser) names(what string) []Name {
	list := []Name{p.name(what)}
	for p.tok == tComma {
		p.next()
		list = append(list, p.name(what))
	}
	return list
}

// ---- expressions

// expr cuts a Go expression out of the text at the current token, up to a
// top-level ',' (or ':' if stopColon), an unmatched closing bracket or the
// end, and parses it with go/parser.
func (p *parser) expr(what string, stopColon bool) *Expr {
	stop := ","
	if stopColon {
		stop = ",:"
	}
	start := p.tokOff
	end := scanExpr(p.src, start, stop)
	text := strings.TrimRightFunc(p.src[start:end], func(r rune) bool { return r < 0x80 && isBlank(byte(r)) })
	if text == "" {
		p.fail("expected " + what)
	}
	e := &Expr{Text: text, Pos: p.posAt(start), X: p.goExpr(text, start)}
	p.off = end
	p.next()
	return e
}

// exprs parses expr { "," expr }.
func (p *parser) exprs(what string) []*Expr {
	list := []*Expr{p.expr(what, false)}
	for p.tok == tComma {
		p.next()
		list = append(list, p.expr(what, false))
	}
	return list
}

var (
	posType = reflect.TypeFor[token.Pos]()
	// goMsg rewords go/parser's view of the end of the expression text.
	goMsg = strings.NewReplacer("'EOF'", "end of expression", "found newline", "found end of expression")
)

// goExpr parses text, found at offset off, as a Go expression. A syntax
// error is reported at its column in the source and yields nil. Otherwise the
// tree's positions are moved from go/parser's private file to p.base, so
// that they point into the caller's file.
func (p *parser) goExpr(text string, off int) ast.Expr {
	x, err := goparser.ParseExprFrom(token.NewFileSet(), "", text, goparser.SkipObjectResolution)
	if err != nil {
		e := err.(scanner.ErrorList)[0]
		p.errorAt(off+e.Pos.Offset, "%s", goMsg.Replace(e.Msg))
		return nil
	}
	// A new FileSet's first file has base 1.
	delta := int64(p.base) + int64(off) - 1
	ast.Inspect(x, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		v := reflect.ValueOf(n).Elem()
		for i := range v.NumField() {
			if f := v.Field(i); f.Type() == posType && f.Int() != 0 {
				f.SetInt(f.Int() + delta)
			}
		}
		return true
	})
	return x
}

// ---- data mapping

// dims parses "(" Dim { "," Dim } ")".
func (p *parser) dims() []Dim {
	p.expect(tLparen, `"("`)
	var dims []Dim
	for {
		d := Dim{Pos: p.posAt(p.tokOff)}
		if p.tok == tColon {
			d.Colon = true
			p.next()
		} else {
			e := p.expr("dimension", true)
			if p.tok == tColon {
				p.next()
				d.Lo, d.Hi = e, p.expr("upper bound", true)
			} else {
				d.Size = e
			}
		}
		dims = append(dims, d)
		if p.tok != tComma {
			break
		}
		p.next()
	}
	p.expect(tRparen, `"," or ")"`)
	return dims
}

// noColons reports ':' dimensions, which only a template may have.
func (p *parser) noColons(dims []Dim) {
	for _, d := range dims {
		if d.Colon {
			p.report(d.Pos, "':' (creatable dimension) is allowed only in a template")
		}
	}
}

func parseProcessors(p *parser, d *Directive) {
	x := &ProcessorsDir{}
	d.Processors = x
	x.Name = p.name("arrangement name")
	x.Dims = p.dims()
	p.noColons(x.Dims)
}

func parseTemplate(p *parser, d *Directive) {
	x := &TemplateDir{}
	d.Template = x
	x.Name = p.name("template name")
	x.Dims = p.dims()
	i := slices.IndexFunc(x.Dims, func(d Dim) bool { return d.Colon })
	j := slices.IndexFunc(x.Dims, func(d Dim) bool { return !d.Colon })
	switch {
	case j < 0:
		x.Creatable = true
	case i >= 0:
		p.report(x.Dims[max(i, j)].Pos, "cannot mix ':' and extents: a creatable template has ':' in every dimension")
	}
}

func parseCreate(p *parser, d *Directive) {
	x := &CreateDir{}
	d.Create = x
	x.Name = p.name("template name")
	x.Dims = p.dims()
	p.noColons(x.Dims)
}

func parseName(what string) func(*parser, *Directive) {
	return func(p *parser, d *Directive) { d.Name = p.namePtr(what) }
}

func parseDistribute(p *parser, d *Directive) {
	x := &DistributeDir{Redistribute: d.Kind == Redistribute}
	d.Distribute = x
	switch p.tok {
	case tLparen:
		p.next()
		x.Formats = []Format{p.format(false)}
		for p.tok == tComma {
			p.next()
			x.Formats = append(x.Formats, p.format(false))
		}
		p.expect(tRparen, `"," or ")"`)
		if p.word("onto") {
			p.next()
			x.Onto = p.namePtr("processor arrangement name")
			p.expect(tDColon, `"::"`)
		} else {
			p.expect(tDColon, `"onto" or "::"`)
		}
		x.Templates = p.names("template name")
	case tName:
		x.Templates = p.names("template name")
		if p.tok == tLparen {
			// DVM's DISTRIBUTE T(BLOCK) ONTO P (x572).
			t := x.Templates[len(x.Templates)-1].Name
			p.errorAt(p.tokOff, `expected "," or "with", found "("; DVM's DISTRIBUTE %s(BLOCK) ONTO P is written %s (block) onto P :: %s`, t, d.Kind, t)
			panic(bailout{})
		}
		if !p.word("with") {
			p.fail(`expected "," or "with"`)
		}
		p.next()
		x.With = p.namePtr("template name")
	default:
		p.fail(`expected "(" or template name`)
	}
}

var (
	formatWords = []string{"block", "cyclic", "general_block", "indirect"}
	loopWords   = formatWords[:2]
	formatArgs  = map[FormatKind]string{Cyclic: "block size", GeneralBlock: "block sizes", Indirect: "owner map"}
)

// format parses a distribution format; loop restricts it to the loop-level
// formats of a pdo strategy (block, cyclic, cyclic(k)).
func (p *parser) format(loop bool) Format {
	f := Format{Pos: p.posAt(p.tokOff)}
	if p.tok == tStar && !loop {
		f.Kind = Star
		p.next()
		return f
	}
	if p.tok != tName {
		if loop {
			p.fail("expected block, cyclic or cyclic(k)")
		}
		p.fail("expected distribution format (block, cyclic, general_block, indirect or *)")
	}
	words := formatWords
	if loop {
		words = loopWords
	}
	w := strings.ToLower(p.lit)
	i := slices.Index(words, w)
	if i < 0 {
		p.unknown("format", words)
	}
	f.Kind = FormatKind(i)
	p.next()
	// block takes no argument, cyclic an optional one, the others one.
	if f.Kind == Block || f.Kind == Cyclic && p.tok != tLparen {
		return f
	}
	p.expect(tLparen, fmt.Sprintf(`"(" after %s`, w))
	f.Arg = p.expr(formatArgs[f.Kind], false)
	p.expect(tRparen, `")"`)
	return f
}

// ---- parallel loops and sections

var pdoClauses = []string{"label", "loops", "processors", "strategy", "reduction", "template"}

func parsePDO(p *parser, d *Directive) {
	x := &PDODir{}
	d.PDO = x
	seen := map[string]bool{}
	for first := true; p.tok != tEOF; first = false {
		if !first && p.tok == tComma {
			p.next()
		}
		start, isName := p.tokOff, p.tok == tName
		if !p.try(func() { p.clause(x, seen) }) {
			// Resume after the bad clause's parenthesis, so that one bad
			// clause does not hide the errors of the others.
			end, ok := skipClause(p.src, start)
			if !isName || !ok {
				panic(bailout{})
			}
			p.off = end
			p.next()
		}
	}
	// Fewer formats than loops distribute the outer loops (as the default
	// schedule distributes the outermost); more have no loop to apply to.
	if s := x.Strategy; s != nil && s.Kind == LoopLevel && x.Loops != nil && len(s.Formats) > len(x.Loops) {
		p.report(s.Pos, "strategy has %d loop formats for a nest of %d: one format per loop at most, outermost first", len(s.Formats), len(x.Loops))
	}
}

// skipClause returns the end of the clause "word(...)" at s[i:].
func skipClause(s string, i int) (int, bool) {
	i = wordEnd(s, i)
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	if i == len(s) || s[i] != '(' {
		return 0, false
	}
	j := scanExpr(s, i+1, "")
	if j == len(s) || s[j] != ')' {
		return 0, false
	}
	return j + 1, true
}

// clause parses one pdo clause. Each may be given once, except reduction.
func (p *parser) clause(x *PDODir, seen map[string]bool) {
	if p.tok != tName {
		p.fail("expected clause (" + strings.Join(pdoClauses, ", ") + ")")
	}
	w := strings.ToLower(p.lit)
	if !slices.Contains(pdoClauses, w) {
		p.unknown("clause", pdoClauses)
	}
	if seen[w] && w != "reduction" {
		p.errorAt(p.tokOff, "duplicate %s clause", w)
	}
	seen[w] = true
	p.next()
	p.expect(tLparen, fmt.Sprintf(`"(" after %s`, w))
	closing := `")"`
	switch w {
	case "label":
		x.Label = p.namePtr("label name")
	case "loops":
		x.Loops = p.names("loop variable name in loops(...)")
		closing = `"," or ")"`
	case "processors":
		x.Processors = p.namePtr("processor arrangement name")
	case "strategy":
		x.Strategy = p.strategy()
	case "reduction":
		x.Reductions = append(x.Reductions, p.reduction())
		for p.tok == tSemi {
			p.next()
			x.Reductions = append(x.Reductions, p.reduction())
		}
		closing = `",", ";" or ")"`
	case "template":
		x.Template = p.namePtr("template name")
	}
	p.expect(tRparen, closing)
}

var strategyWords = []string{"on_home", "block", "cyclic", "dynamic", "guided", "affinity"}

func (p *parser) strategy() *Strategy {
	s := &Strategy{Pos: p.posAt(p.tokOff)}
	if p.tok != tName {
		p.fail("expected strategy (" + strings.Join(strategyWords, ", ") + ")")
	}
	switch strings.ToLower(p.lit) {
	case "on_home":
		s.Kind = OnHome
		p.next()
		p.expect(tLparen, `"(" after on_home`)
		s.Template = p.namePtr("template name")
		p.expect(tLparen, `"(" and template subscripts`)
		s.Subs = p.exprs("template subscript")
		p.expect(tRparen, `"," or ")"`)
		p.expect(tRparen, `")"`)
	case "block", "cyclic":
		s.Kind = LoopLevel
		s.Formats = []Format{p.format(true)}
		for p.tok == tComma {
			p.next()
			s.Formats = append(s.Formats, p.format(true))
		}
	case "dynamic", "guided", "affinity":
		s.Kind = map[string]StrategyKind{"dynamic": Dynamic, "guided": Guided, "affinity": Affinity}[strings.ToLower(p.lit)]
		p.next()
		if s.Kind != Affinity && p.tok == tLparen {
			p.next()
			s.Chunk = p.expr("chunk size", false)
			p.expect(tRparen, `")"`)
		}
	default:
		p.unknown("strategy", strategyWords)
	}
	return s
}

var reduceOps = map[string]ReduceOp{
	"+": Add, "*": Mul, "min": Min, "max": Max, "&": And, "|": Or, "^": Xor, "&&": LogAnd, "||": LogOr,
}

// reduction parses "op: v1, v2".
func (p *parser) reduction() Reduction {
	r := Reduction{OpPos: p.posAt(p.tokOff)}
	op, ok := reduceOps[strings.ToLower(p.lit)]
	if !ok {
		p.fail("expected reduction operator (+ * min max & | ^ && ||)")
	}
	r.Op = op
	p.next()
	p.expect(tColon, `":" after reduction operator`)
	for {
		start := p.tokOff
		v := p.name("reduction variable name")
		if p.tok == tOther && (p.lit == "." || p.lit == "[") {
			// reduction(+: st.total) is what a user writes first.
			x := strings.TrimSpace(p.src[start:scanExpr(p.src, start, ",;")])
			what, local := "a field", x[strings.LastIndexByte(x, '.')+1:]
			if p.lit == "[" {
				what, local = "an element", v.Name+"Part"
			}
			p.errorAt(start, "%s is %s, not a variable: a reduction variable is a variable of the function; reduce into a local one and store it after the loop (%s := %s before it, reduction(%s: %s), %s = %s after it)",
				x, what, local, x, r.Op, local, x, local)
			panic(bailout{})
		}
		r.Vars = append(r.Vars, v)
		if p.tok != tComma {
			return r
		}
		p.next()
	}
}

func parseSection(p *parser, d *Directive) {
	x := &SectionDir{}
	d.Section = x
	if p.word("processors") {
		p.next()
		p.expect(tLparen, `"(" after processors`)
		x.Processors = p.namePtr("processor arrangement name")
		if p.tok == tLparen {
			x.Part = p.dims()
		}
		p.expect(tRparen, `")"`)
	}
}

// ---- synchronisation, modes, tracing, SVM support

func parseCritical(p *parser, d *Directive) {
	if p.tok == tLparen {
		// OpenMP's critical(name).
		p.fail("expected a name or end of directive: a critical section's name follows the keyword without parentheses (//svm:critical acc, where OpenMP writes critical(acc))")
	}
	if p.tok == tName {
		word := p.lit
		d.Name = p.namePtr("name")
		if p.tok == tLparen {
			// critical name(acc), critical label(acc): a clause svmc has not.
			p.fail(fmt.Sprintf("expected end of directive: a critical section takes its name alone, with no clause (//svm:critical acc); %q was taken as the name", word))
		}
	}
}

func parseLock(p *parser, d *Directive) {
	x := &LockDir{}
	d.Lock = x
	p.expect(tLparen, `"("`)
	x.Vars = p.exprs("lock variable")
	p.expect(tRparen, `"," or ")"`)
}

func parseEnd(p *parser, d *Directive) {
	x := &EndDir{WhatPos: p.posAt(p.tokOff)}
	d.End = x
	endable := keywords(func(in Info) bool { return in.EndForm })
	if p.tok != tName {
		p.fail("expected construct to end (" + strings.Join(endable, ", ") + ")")
	}
	k, ok := kindOf[strings.ToLower(p.lit)]
	if !ok {
		p.unknown("construct", endable)
	}
	if !Table[k].EndForm {
		why := ""
		switch k {
		case PDO:
			// SVM-Fortran's END PDO (x573).
			why = "; a pdo is the loop that follows it and ends with that loop: delete this line"
		case PSection:
			why = "; a psection is the block that follows it and ends with that block: delete this line"
		}
		p.errorAt(p.tokOff, "%s cannot be closed by end (only %s can)%s", k, strings.Join(endable, ", "), why)
		panic(bailout{})
	}
	x.What = k
	p.next()
	if (k == Critical || k == TraceRegion) && p.tok == tName {
		x.Name = p.namePtr("name")
	}
}

func parseShared(p *parser, d *Directive) {
	d.Shared = &SharedDir{}
	if p.tok == tEOF {
		// //svm:shared above a make: it names variables, declared before it.
		p.errorAt(p.tokOff, "name the variables whose storage it shares, declared before the directive: data := make([]float64, n) and then //svm:shared data")
		panic(bailout{})
	}
	d.Shared.Vars = p.names("variable name")
	if p.tok != tEOF && (p.lit == "." || p.lit == "[") {
		// g.Data, a[1]: the layer keeps variables' storage; say how.
		v := d.Shared.Vars[len(d.Shared.Vars)-1].Name
		x, at := v+p.lit+"…", p.tokOff
		if start := p.tokOff - len(v); start >= 0 && p.src[start:p.tokOff] == v {
			x, at = strings.TrimSpace(p.src[start:scanExpr(p.src, start, ",")]), start
		}
		slice := x
		if p.lit == "." && !strings.HasSuffix(x, "]") {
			// A field may be an array, which data := g.Arr would copy.
			slice = fmt.Sprintf("%s; for an array field data := %s[:], since data := %s would copy the array", x, x, x)
		}
		p.errorAt(at, "shared names variables, not fields or elements (%s): take the slice into a variable (data := %s) and share that; the storage is shared whatever name reaches it, so the code may go on using %s (`_ = data` keeps Go from calling data unused)", x, slice, x)
		panic(bailout{})
	}
}

// IgnoreChecks are the checks //svm:ignore can suppress.
var IgnoreChecks = []string{"race"}

// parseIgnore parses `ignore race: reason`; the reason is the rest of the
// comment as written.
func parseIgnore(p *parser, d *Directive) {
	x := &IgnoreDir{}
	d.Ignore = x
	at := p.tokOff
	x.Check = p.name("the check to ignore (race)")
	if !slices.Contains(IgnoreChecks, strings.ToLower(x.Check.Name)) {
		p.errorAt(at, "ignore: unknown check %q (the checks: %s)", x.Check.Name, strings.Join(IgnoreChecks, ", "))
	}
	if p.tok != tColon {
		p.fail(`expected ":" and the reason (//svm:ignore race: why the warning does not apply)`)
	}
	x.Reason = strings.TrimSpace(p.src[p.off:])
	if x.Reason == "" {
		p.fail("ignore: give the reason after the colon: it is listed with the warning it suppresses")
	}
	p.off, p.tok, p.lit = len(p.src), tEOF, ""
}

func parseCoherence(p *parser, d *Directive) {
	x := &CoherenceDir{}
	d.Coherence = x
	p.expect(tLparen, `"("`)
	x.Strategy = p.name("coherence strategy")
	p.expect(tRparen, `")"`)
	p.expect(tDColon, `"::"`)
	x.Vars = p.names("variable name")
}

func parsePrefetch(p *parser, d *Directive) {
	d.Prefetch = &PrefetchDir{}
	d.Prefetch.Refs = p.exprs("reference")
}
