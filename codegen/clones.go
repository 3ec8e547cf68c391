package codegen

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/svmc/svmc/compiler"
)

// A recursive function pays at every call for being instrumented: the
// processor as a parameter and the test of whether to trace (fib(27) took
// 1.3-1.5 times the plain build at stage 0). Where nothing can be traced on
// a processor (rtlib's Tracked, fixed for the run: stage 0, no LOCAL
// requests) the processor serves such a function nothing when its body
// needs it only to pass it on to functions of the same kind. So a
// recursive function whose body svmc rewrites in no other way gets a
// plain clone, the user's text with those calls renamed to their own
// clones, and its instrumented form begins with
//
//	if !svm_p.Tracked() {
//		return svm_svm_svm_F(args...)
//	}
//
// The recursion then runs as in the plain build. Only recursive functions
// (and what their clones call) are cloned: a function called from a loop
// pays its test once per call of a body large enough not to be inlined,
// while a clone doubles code the Go compiler must build (issue 9's compile
// time).

// clonePrefix begins a plain clone's name: svm_svm_svm_F is neither an
// instrumented function (svm_X, and no user's X begins with svm_) nor a
// traced entry (svm_svm_X).
const clonePrefix = tracedPrefix + compiler.Reserved

// cloneRecursion chooses the package's clones and places them, after the
// edits of every file are known and before they are applied.
func cloneRecursion(p *compiler.Package, gens []*gen) {
	calls := map[*compiler.Sub][]*compiler.Sub{} // the candidates and what they call
	home := map[*compiler.Sub]*gen{}
	byFile := map[*compiler.File]*gen{}
	for _, g := range gens {
		byFile[g.f] = g
	}
	for _, s := range p.Subs {
		g := byFile[s.File]
		if g == nil || s.Main || s.Plain || s.Decl.Body == nil || len(s.Constructs) > 0 || len(s.Shared) > 0 || testEntry(s) != "" {
			continue
		}
		if cs, ok := g.onlyPasses(s); ok {
			calls[s], home[s] = cs, g
		}
	}
	// A candidate that calls a function which is not one cannot run
	// without its processor.
	for changed := true; changed; {
		changed = false
		for s, cs := range calls {
			for _, c := range cs {
				if _, ok := calls[c]; !ok {
					delete(calls, s)
					changed = true
					break
				}
			}
		}
	}
	rec := recursive(calls)
	cloned := map[*compiler.Sub]bool{}
	var reach func(s *compiler.Sub)
	reach = func(s *compiler.Sub) {
		if cloned[s] {
			return
		}
		cloned[s] = true
		for _, c := range calls[s] {
			reach(c)
		}
	}
	for _, s := range rec {
		reach(s)
	}
	for _, s := range p.Subs { // in the package's order: the output is stable
		if cloned[s] {
			home[s].clone(s)
		}
	}
	for _, s := range rec {
		home[s].enterClone(s)
	}
}

// onlyPasses reports whether the only edits in s's body are its traced
// entry and calls that pass the processor, and returns the subprograms
// those calls call.
func (g *gen) onlyPasses(s *compiler.Sub) ([]*compiler.Sub, bool) {
	lo, hi := g.off(s.Decl.Body.Lbrace), g.off(s.Decl.Body.Rbrace)
	var out []*compiler.Sub
	for _, ed := range g.e.edits {
		if ed.end < lo || ed.start > hi {
			continue
		}
		switch {
		case ed.entry == s:
		case ed.passes != nil:
			if !slices.Contains(out, ed.passes) {
				out = append(out, ed.passes)
			}
		default:
			return nil, false
		}
	}
	return out, true
}

// recursive returns the subprograms of the call graph that lie on a cycle
// (Tarjan's strongly connected components: a component of more than one,
// or one that calls itself), in the order of their numbers.
func recursive(calls map[*compiler.Sub][]*compiler.Sub) []*compiler.Sub {
	index, low := map[*compiler.Sub]int{}, map[*compiler.Sub]int{}
	on := map[*compiler.Sub]bool{}
	var stack, out []*compiler.Sub
	var visit func(s *compiler.Sub)
	visit = func(s *compiler.Sub) {
		index[s], low[s] = len(index), len(index)
		stack = append(stack, s)
		on[s] = true
		for _, c := range calls[s] {
			if _, seen := index[c]; !seen {
				visit(c)
				low[s] = min(low[s], low[c])
			} else if on[c] {
				low[s] = min(low[s], index[c])
			}
		}
		if low[s] != index[s] {
			return
		}
		i := len(stack) - 1
		for stack[i] != s {
			i--
		}
		comp := stack[i:]
		stack = stack[:i]
		for _, c := range comp {
			on[c] = false
		}
		if len(comp) > 1 || slices.Contains(calls[s], s) {
			out = append(out, comp...)
		}
	}
	subs := make([]*compiler.Sub, 0, len(calls))
	for s := range calls {
		subs = append(subs, s)
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].Num < subs[j].Num })
	for _, s := range subs {
		if _, seen := index[s]; !seen {
			visit(s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Num < out[j].Num })
	return out
}

// clone writes s's plain clone after it: the user's text, its name and
// its calls of instrumented functions (all cloned) renamed, its positions
// those of the original.
func (g *gen) clone(s *compiler.Sub) {
	fd := s.Decl
	type rename struct {
		at, end int
		name    string
	}
	rs := []rename{{g.off(fd.Name.Pos()), g.off(fd.Name.End()), clonePrefix + fd.Name.Name}}
	for _, c := range g.pc.of[s].body {
		id := callee(g.p, c.Fun)
		rs = append(rs, rename{g.off(id.Pos()), g.off(id.End()), clonePrefix + id.Name})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].at < rs[j].at })
	start, end := g.off(fd.Pos()), g.off(fd.End())
	var text strings.Builder
	last := start
	for _, r := range rs {
		text.Write(g.e.src[last:r.at])
		text.WriteString(r.name)
		last = r.end
	}
	text.Write(g.e.src[last:end])
	// The clone follows the function on lines of its own, and the text
	// after it gets its position back.
	clone := g.e.resume(start, true) + text.String() + "\n"
	if g.e.blankAfter(end) && g.e.nextLine(end) < len(g.e.src) {
		at := g.e.nextLine(end)
		g.e.add(at, at, "\n"+clone+g.e.resume(at, false), following)
		return
	}
	g.e.add(end, end, "\n\n"+clone+g.e.resume(end, true), following)
}

// enterClone begins s's instrumented form with the call of its clone where
// nothing can be traced.
func (g *gen) enterClone(s *compiler.Sub) {
	sg := g.signature(s)
	call := sg.callWith(clonePrefix+s.Decl.Name.Name, sg.recv, sg.args, "")
	if sg.results {
		call = "return " + call
	} else {
		call += "\nreturn"
	}
	body := s.Decl.Body
	g.e.lines(g.off(body.Lbrace)+1, fmt.Sprintf("if !%s.Tracked() {\n%s\n}", procVar, call), following, g.line(body.Lbrace))
}
