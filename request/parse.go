package request

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse parses the request file src; name is used in positions. INCLUDE
// entries are not followed (see Load). The error, if any, is an ErrorList of
// every error found: like Go's parsers, a syntax error abandons the entry it
// is in and parsing resumes at the next line that starts with an entry
// keyword; an error that leaves the structure intact (an unknown request
// word, a bad stage or size) is only recorded. On error the File holds the
// entries that could be parsed.
func Parse(name string, src []byte) (*File, error) {
	p := &parser{s: newScanner(name, src), f: &File{Name: name}}
	p.next()
	p.parseFile()
	return p.f, p.errs.Err()
}

// maxErrors bounds the errors reported for one file.
const maxErrors = 50

type parser struct {
	s     *scanner
	tok   token // current token
	prev  token // the token before it
	errs  ErrorList
	f     *File
	start Pos  // position of the current entry's keyword
	list  bool // the entry just parsed ends with a list
}

// bailout abandons an entry after a syntax error; stop ends parsing.
type (
	bailout struct{}
	stop    struct{}
)

func (p *parser) next() {
	p.prev = p.tok
	p.tok = p.s.next()
}

func (p *parser) errorf(pos Pos, format string, args ...any) {
	if len(p.errs) == maxErrors {
		p.errs = append(p.errs, Diagnostic{pos, "too many errors"})
		panic(stop{})
	}
	p.errs = append(p.errs, Diagnostic{pos, fmt.Sprintf(format, args...)})
}

// describe names a token in messages.
func describe(t token) string {
	if t.kind == tEOF {
		return "end of file"
	}
	return strconv.Quote(t.text)
}

// keyword returns the lower-case text of an identifier token, "" otherwise.
func keyword(t token) string {
	if t.kind != tIdent {
		return ""
	}
	return strings.ToLower(t.text)
}

var entryKeywords = []string{"CONFIG", "INCLUDE", "REQUEST"}

// isEntryStart reports whether t looks like the keyword of an entry (or a
// misspelling of one): where parsing resumes after a syntax error.
func isEntryStart(t token) bool {
	if t.kind != tIdent {
		return false
	}
	switch keyword(t) {
	case "config", "include", "request":
		return true
	}
	return suggest(t.text, entryKeywords) != ""
}

// unexpected reports that the current token is not what was expected
// and abandons the entry. A following entry or the end of the file is
// reported at the end of the previous token ("found end of line"); an
// identifier close to one of the candidates gets a suggestion.
func (p *parser) unexpected(what string, candidates ...string) {
	t := p.tok
	switch {
	case t.kind == tEOF:
		p.errorf(p.prev.end, "expected %s, found end of file", what)
	case t.first && isEntryStart(t) && t.pos != p.start:
		p.errorf(p.prev.end, "expected %s, found end of line", what)
	case t.kind == tIdent && len(candidates) > 0:
		p.errorf(t.pos, "expected %s, found %s%s", what, describe(t), suggest(t.text, candidates))
	default:
		p.errorf(t.pos, "expected %s, found %s", what, describe(t))
	}
	panic(bailout{})
}

func (p *parser) expect(k tokKind, what string) token {
	t := p.tok
	if t.kind != k {
		p.unexpected(what)
	}
	p.next()
	return t
}

// sync skips to the next entry: a token that starts a line and looks like an
// entry keyword, other than the one of the abandoned entry.
func (p *parser) sync() {
	for p.tok.kind != tEOF {
		if p.tok.first && isEntryStart(p.tok) && p.tok.pos != p.start {
			return
		}
		p.next()
	}
}

func (p *parser) parseFile() {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stop); !ok {
				panic(r)
			}
		}
	}()
	for p.tok.kind != tEOF {
		p.entry()
	}
}

func (p *parser) entry() {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			p.sync()
		}
	}()
	t := p.tok
	p.start = t.pos
	p.list = false
	var e Entry
	switch keyword(t) {
	case "config":
		if c := p.config(); c != nil {
			e = c
		}
	case "include":
		if in := p.include(); in != nil {
			e = in
		}
	case "request":
		if r := p.request(); r != nil {
			e = r
		}
	default:
		p.unexpected("CONFIG, INCLUDE or REQUEST", entryKeywords...)
	}
	if e != nil {
		p.f.Entries = append(p.f.Entries, e)
	}
	if p.tok.kind != tEOF && !p.tok.first {
		hint := "; an entry ends at the end of its line"
		if p.list {
			hint = " (missing ','?)"
		}
		p.errorf(p.tok.pos, "unexpected %s after the end of the entry%s", describe(p.tok), hint)
		p.sync()
	}
}

// config parses "CONFIG <key>: <value>"; it returns nil after an error.
func (p *parser) config() *ConfigEntry {
	at := p.tok.pos
	p.next()
	kt := p.tok
	if kt.kind != tIdent {
		p.unexpected("SVM_TraceBuf_Size, SVM_Kernel_TraceBuf_Size, SVM_TraceStage or SVM_Throttle_Calls after CONFIG")
	}
	key := lookupConfig(kt.text)
	if key == 0 {
		p.errorf(kt.pos, "unknown configuration parameter %s%s", describe(kt), suggest(kt.text, configNames[1:]))
	}
	p.next()
	p.expect(tColon, fmt.Sprintf("':' after %s", kt.text))
	vt := p.tok
	if vt.kind != tNumber {
		switch key {
		case ConfigTraceStage:
			p.unexpected("a stage number (0 to 6) after " + kt.text + ":")
		case ConfigThrottleCalls:
			p.unexpected("a number of calls after " + kt.text + ":")
		case 0:
			p.unexpected("a value after " + kt.text + ":")
		default:
			p.unexpected("a size after " + kt.text + ":")
		}
	}
	p.next()
	if key == 0 {
		return nil
	}
	e := &ConfigEntry{At: at, Key: key, KeyPos: kt.pos, ValuePos: vt.pos}
	var msg string
	switch key {
	case ConfigTraceStage:
		e.Value, msg = parseStage(vt.text)
	case ConfigThrottleCalls:
		e.Value, msg = parseCalls(vt.text)
	default:
		e.Value, msg = parseSize(vt.text)
	}
	if msg != "" {
		p.errorf(vt.pos, "%s", msg)
		return nil
	}
	return e
}

func lookupConfig(s string) ConfigKey {
	for k, n := range configNames {
		if n != "" && strings.EqualFold(n, s) {
			return ConfigKey(k)
		}
	}
	return 0
}

// parseStage reads a stage number 0..6.
func parseStage(s string) (int64, string) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > MaxStage {
		return 0, fmt.Sprintf("bad stage %q: want a number from 0 to %d", s, MaxStage)
	}
	return int64(n), ""
}

// parseSize is ParseSize with its error as a message.
// parseCalls is a number of calls, 0 or more (0: no throttling).
func parseCalls(s string) (int64, string) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > MaxCalls {
		return 0, fmt.Sprintf("bad number of calls %q: want 0 (no throttling) to %d", s, MaxCalls)
	}
	return n, ""
}

// MaxCalls bounds SVM_Throttle_Calls.
const MaxCalls int64 = 1 << 40

func parseSize(s string) (int64, string) {
	n, err := ParseSize(s)
	if err != nil {
		return 0, err.Error()
	}
	return n, ""
}

// include parses "INCLUDE <file>"; it returns nil after an error.
func (p *parser) include() *Include {
	at := p.tok.pos
	name, pos, msg := p.s.fileName()
	p.next()
	if msg != "" {
		p.errorf(pos, "%s", msg)
		return nil
	}
	return &Include{At: at, Path: name, PathPos: pos}
}

// request parses "REQUEST [(<nodes>)] GLOBAL ..." or "... LOCAL ...". It
// returns nil if the request had an error.
func (p *parser) request() *Request {
	nerr := len(p.errs)
	r := &Request{At: p.tok.pos}
	p.next()
	if p.tok.kind == tLParen {
		p.next()
		r.Nodes = p.ranges("node")
		p.expect(tRParen, "',' or ')' after the node list")
	}
	switch keyword(p.tok) {
	case "global":
		r.Global = p.global()
	case "local":
		r.Local = p.local()
	default:
		p.unexpected("GLOBAL or LOCAL after REQUEST", "GLOBAL", "LOCAL")
	}
	p.list = true
	if len(p.errs) > nerr {
		return nil
	}
	return r
}

// maxNumber bounds node and region numbers.
const maxNumber = 1<<31 - 1

// ranges parses "<n>[-<n>] {, <n>[-<n>]}" of node or region numbers.
func (p *parser) ranges(what string) []Range {
	var out []Range
	for {
		t := p.tok
		lo, ok := p.number(what)
		hi := lo
		if p.tok.kind == tMinus {
			p.next()
			var ok2 bool
			hi, ok2 = p.number(what)
			ok = ok && ok2
		}
		if ok && lo > hi {
			p.errorf(t.pos, "bad %s range %d-%d: %d is larger than %d", what, lo, hi, lo, hi)
		}
		out = append(out, Range{Pos: t.pos, Lo: lo, Hi: hi})
		if p.tok.kind != tComma {
			return out
		}
		p.next()
	}
}

// number parses a decimal number; ok is false (and the error recorded) if
// the token is not one.
func (p *parser) number(what string) (n int, ok bool) {
	t := p.tok
	if t.kind != tNumber {
		p.unexpected("a " + what + " number")
	}
	p.next()
	n, err := strconv.Atoi(t.text)
	if err != nil || n > maxNumber {
		p.errorf(t.pos, "bad %s number %s", what, describe(t))
		return 0, false
	}
	return n, true
}

func (p *parser) global() *Global {
	g := &Global{At: p.tok.pos}
	p.next()
	for {
		t := p.tok
		if t.kind != tIdent {
			p.unexpected("MappingInfo, TrOverhead or KernBufOverflow")
		}
		p.next()
		if k := lookupGlobal(t.text); k != 0 {
			g.Items = append(g.Items, GlobalItem{Pos: t.pos, Kind: k})
		} else {
			p.errorf(t.pos, "unknown global request %s%s", describe(t), suggest(t.text, globalNames()))
		}
		if p.tok.kind != tComma {
			return g
		}
		p.next()
	}
}

func lookupGlobal(s string) GlobalKind {
	for _, g := range Globals {
		if g.Name != "" && strings.EqualFold(g.Name, s) {
			return g.Kind
		}
	}
	return 0
}

func globalNames() []string {
	var out []string
	for _, g := range Globals {
		if g.Name != "" {
			out = append(out, g.Name)
		}
	}
	return out
}

var regKeywords = []string{"PDO_LABEL", "REG_LABEL", "REG_NO"}

const regWhat = "PDO_LABEL(...), REG_LABEL(...), REG_NO(...) or *"

// local parses "LOCAL <sub>.<region>: (<word>), ...".
func (p *parser) local() *Local {
	l := &Local{At: p.tok.pos}
	p.next()
	t := p.tok
	l.Sub.Pos = t.pos
	switch t.kind {
	case tStar:
		l.Sub.Kind = SubAll
	case tAt:
		l.Sub.Kind = SubMain
		if !strings.EqualFold(t.text, "@MAIN") {
			p.errorf(t.pos, "unknown %s: the main function is @MAIN", describe(t))
		}
	case tIdent:
		l.Sub.Kind = SubNamed
		l.Sub.Name = t.text
	default:
		p.unexpected("a function name, @MAIN or * after LOCAL")
	}
	p.next()
	p.expect(tDot, "'.' and a region after "+strconv.Quote(t.text))
	// The region: '*' or a region keyword followed by '('. An identifier
	// followed by '.' is the method part of "T.M".
	for {
		rt := p.tok
		switch rt.kind {
		case tStar:
			p.next()
			l.Region = RegionSpec{Pos: rt.pos, Kind: RegAll}
		case tIdent:
			p.next()
			switch {
			case p.tok.kind == tDot && l.Sub.Kind == SubNamed && !strings.Contains(l.Sub.Name, "."):
				l.Sub.Name += "." + rt.text
				p.next()
				continue
			case p.tok.kind == tColon && l.Sub.Kind == SubNamed && !strings.Contains(l.Sub.Name, ".") && !isRegKeyword(rt.text):
				// LOCAL KMeans.Step: (REGION) — a method, the region left out.
				m := l.Sub.Name + "." + rt.text
				p.errorf(rt.pos, "expected %s after %q, found %q: a method's regions are named after it, %s.* for all of them (its own and those inside it), %s.PDO_LABEL(name) for one", regWhat, l.Sub.Name+".", rt.text, m, m)
				panic(bailout{})
			case isRegKeyword(rt.text):
				if p.tok.kind != tLParen {
					p.unexpected("'(' after " + strings.ToUpper(rt.text))
				}
			case p.tok.kind != tLParen || suggest(rt.text, regKeywords) == "":
				p.errorf(rt.pos, "expected %s after %q, found %s%s", regWhat, subText(l.Sub)+".", describe(rt), suggest(rt.text, regKeywords))
				panic(bailout{})
			}
			l.Region = p.regionSpec(rt)
		default:
			p.unexpected(regWhat + " after " + strconv.Quote(subText(l.Sub)+"."))
		}
		break
	}
	p.expect(tColon, "':' after the region")
	for {
		p.expect(tLParen, "'(' before a request word")
		for {
			p.word(l)
			if p.tok.kind != tComma {
				break
			}
			p.next()
		}
		p.expect(tRParen, "')' after the request word")
		if p.tok.kind != tComma {
			return l
		}
		p.next()
	}
}

func isRegKeyword(s string) bool {
	for _, k := range regKeywords {
		if strings.EqualFold(k, s) {
			return true
		}
	}
	return false
}

// subText is the subprogram part of a local request as written.
func subText(s SubSpec) string {
	switch s.Kind {
	case SubMain:
		return "@MAIN"
	case SubAll:
		return "*"
	}
	return s.Name
}

// regionSpec parses the argument list of a region keyword kw (already
// consumed; the current token is '('). A misspelled keyword is reported
// and the list parsed as labels.
func (p *parser) regionSpec(kw token) RegionSpec {
	spec := RegionSpec{Pos: kw.pos}
	switch strings.ToUpper(kw.text) {
	case "PDO_LABEL":
		spec.Kind = RegPDOLabel
	case "REG_LABEL":
		spec.Kind = RegLabel
	case "REG_NO":
		spec.Kind = RegNo
	default:
		p.errorf(kw.pos, "unknown region keyword %s%s", describe(kw), suggest(kw.text, regKeywords))
		spec.Kind = RegLabel
	}
	p.next() // '('
	if spec.Kind == RegNo {
		spec.Nums = p.ranges("region")
		p.expect(tRParen, "',' or ')' after the region numbers")
		return spec
	}
	for {
		t := p.tok
		if t.kind != tIdent {
			p.unexpected("a label")
		}
		p.next()
		spec.Labels = append(spec.Labels, Ident{t.pos, t.text})
		if p.tok.kind != tComma {
			break
		}
		p.next()
	}
	p.expect(tRParen, "',' or ')' after the labels")
	return spec
}

// word parses one request word with its optional variable list and adds it
// to l unless it is unknown.
func (p *parser) word(l *Local) {
	t := p.tok
	var k WordKind
	switch t.kind {
	case tStar:
		p.next()
		p.expect(tDot, "'.' after '*' (*.SVMInfo, *.SyncInfo or *.LangInfo)")
		g := p.tok
		if g.kind != tIdent {
			p.unexpected("SVMInfo, SyncInfo or LangInfo after \"*.\"")
		}
		p.next()
		name := "*." + g.text
		if k = lookupWord(name, true); k == 0 {
			p.errorf(t.pos, "unknown request group %q%s", name, suggest(name, []string{"*.SVMInfo", "*.SyncInfo", "*.LangInfo"}))
		}
	case tIdent:
		p.next()
		if k = lookupWord(t.text, false); k == 0 {
			p.errorf(t.pos, "unknown request word %s%s", describe(t), suggest(t.text, wordNames()))
		}
	default:
		p.unexpected("a request word")
	}
	w := Word{Pos: t.pos, Kind: k}
	if p.tok.kind == tLBrack {
		lb := p.tok
		p.next()
		for {
			v := p.tok
			if v.kind != tIdent {
				p.unexpected("a variable name")
			}
			p.next()
			w.Vars = append(w.Vars, Ident{v.pos, v.text})
			if p.tok.kind != tComma {
				break
			}
			p.next()
		}
		p.expect(tRBrack, "',' or ']' after the variables")
		if k != 0 && !Words[k].Vars {
			p.errorf(lb.pos, "%s takes no variable list", Words[k].Name)
			return
		}
	}
	if k != 0 {
		l.Words = append(l.Words, w)
	}
}

func lookupWord(s string, all bool) WordKind {
	for _, w := range Words[1:] {
		if w.All == all && strings.EqualFold(w.Name, s) {
			return w.Kind
		}
	}
	return 0
}

func wordNames() []string {
	var out []string
	for _, w := range Words[1:] {
		out = append(out, w.Name)
	}
	return out
}
