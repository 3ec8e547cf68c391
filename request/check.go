package request

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// Check resolves the names of f's local requests (and of the files it
// includes) against the program information file: the function (or @MAIN,
// or every function for *), the PDO labels, region labels and region
// numbers in those functions, and the variables of SVMInfo variable lists,
// which must be shared variables (progdb Subprogram.Shared) of the named
// function (of some function, for *). It also warns when a configuration
// parameter is set twice. Node numbers are checked by Compile, which knows
// the number of processors.
//
// Without lenient, a name that does not resolve is an error. With lenient it
// is a warning ending "(request dropped)", and the request is marked Dropped
// so that Compile leaves it out. Check sets Dropped on every request, so it
// may be called again.
func Check(f *File, prog *progdb.Program, lenient bool) (warnings []Diagnostic, errs []Diagnostic) {
	if prog == nil {
		prog = &progdb.Program{}
	}
	seen := map[ConfigKey]*ConfigEntry{}
	walk(f, func(e Entry) {
		switch e := e.(type) {
		case *ConfigEntry:
			if old := seen[e.Key]; old != nil {
				warnings = append(warnings, Diagnostic{e.KeyPos,
					fmt.Sprintf("%s is set again: this value replaces the one at %s", e.Key, old.KeyPos)})
			}
			seen[e.Key] = e
		case *Request:
			e.Dropped = false
			if e.Local == nil {
				return
			}
			ts, d := resolve(e.Local, prog)
			if e.Local.Sub.Kind == SubNamed && len(ts) > 0 && ts[0].sub.Plain {
				warnings = append(warnings, Diagnostic{e.Local.Sub.Pos, fmt.Sprintf(
					"function %s is small enough for Go to inline, so svmc left it as written: it has no region to trace (build with --instrument-all to give it one)", ts[0].sub.Name)})
			}
			switch {
			case len(d) == 0:
			case lenient:
				e.Dropped = true
				for _, x := range d {
					x.Msg += " (request dropped)"
					warnings = append(warnings, x)
				}
			default:
				errs = append(errs, d...)
			}
		}
	})
	return warnings, errs
}

// target is one region a local request names, with the variable numbers of
// its words' variable lists in that region's subprogram.
type target struct {
	sub    *progdb.Subprogram
	region int
}

// resolve returns the regions l names, and a diagnostic for every name that
// does not resolve.
func resolve(l *Local, prog *progdb.Program) (targets []target, diags []Diagnostic) {
	errorf := func(pos Pos, format string, args ...any) {
		diags = append(diags, Diagnostic{pos, fmt.Sprintf(format, args...)})
	}
	var subs []*progdb.Subprogram
	switch l.Sub.Kind {
	case SubNamed:
		s := prog.SubByName(l.Sub.Name)
		if s == nil {
			var names, methods []string
			for _, s := range prog.Subprograms {
				names = append(names, s.Name)
				if _, m, ok := strings.Cut(s.Name, "."); ok && m == l.Sub.Name {
					methods = append(methods, s.Name)
				}
			}
			hint := suggest(l.Sub.Name, names)
			if len(methods) > 0 {
				// LOCAL Step.*: the method KMeans.Step is named with its type.
				hint = fmt.Sprintf("; a method is named with its type: %s", strings.Join(methods, ", "))
			}
			errorf(l.Sub.Pos, "unknown function %q%s", l.Sub.Name, hint)
			return nil, diags
		}
		subs = []*progdb.Subprogram{s}
	case SubMain:
		for _, s := range prog.Subprograms {
			if s.Main {
				subs = append(subs, s)
			}
		}
		if len(subs) == 0 {
			errorf(l.Sub.Pos, "@MAIN: the program has no main function")
			return nil, diags
		}
	case SubAll:
		subs = prog.Subprograms
	}
	// where names the functions searched in messages.
	where := "no function has a"
	if l.Sub.Kind != SubAll {
		where = "function " + subs[0].Name + " has no"
	}

	switch rs := l.Region; rs.Kind {
	case RegAll:
		for _, s := range subs {
			for _, n := range regionNums(s) {
				targets = append(targets, target{s, n})
			}
		}
	case RegPDOLabel, RegLabel:
		what := "pdo"
		if rs.Kind == RegLabel {
			what = "region"
		}
		for _, lab := range rs.Labels {
			var known []string
			found := false
			for _, s := range subs {
				for _, r := range s.Regions {
					if r.Num == 0 {
						continue
					}
					name := regionLabel(s, r)
					if name == "" || rs.Kind == RegPDOLabel && !isPDO(s, r) {
						continue
					}
					if name == lab.Name {
						targets = append(targets, target{s, r.Num})
						found = true
					}
					known = append(known, name)
				}
				if rs.Kind == RegLabel {
					for _, d := range s.Directives {
						if d.Site != progdb.SiteCritical || d.Label == "" {
							continue
						}
						if d.Label == lab.Name {
							targets = append(targets, target{s, holdingRegion(s, d.Pos)})
							found = true
						}
						known = append(known, d.Label)
					}
				}
			}
			if !found {
				errorf(lab.Pos, "%s %s labelled %q%s", where, what, lab.Name, suggest(lab.Name, known))
			}
		}
	case RegNo:
		largest := 0
		for _, s := range subs {
			largest = max(largest, slices.Max(regionNums(s)))
		}
		for _, rg := range rs.Nums {
			has := map[int]bool{}
			for _, s := range subs {
				for _, n := range regionNums(s) {
					if rg.Lo <= n && n <= rg.Hi {
						targets = append(targets, target{s, n})
						has[n] = true
					}
				}
			}
			for n := rg.Lo; n <= rg.Hi; n++ {
				if has[n] {
					continue
				}
				if l.Sub.Kind == SubAll {
					errorf(rg.Pos, "no function has a region %d (the largest region number is %d)", n, largest)
				} else {
					errorf(rg.Pos, "function %s has no region %d (its regions are numbered 0 to %d)", subs[0].Name, n, largest)
				}
				break
			}
		}
	}

	for _, w := range l.Words {
		for _, v := range w.Vars {
			var known []string
			found := false
			for _, s := range subs {
				for _, sv := range s.Shared {
					found = found || sv.Name == v.Name
					known = append(known, sv.Name)
				}
			}
			if !found {
				errorf(v.Pos, "%s shared variable %q%s", where, v.Name, suggest(v.Name, known))
			}
		}
	}
	return targets, diags
}

// regionNums lists the region numbers of s; region 0, the subprogram
// itself, always exists.
func regionNums(s *progdb.Subprogram) []int {
	out := []int{0}
	for _, r := range s.Regions {
		if r.Num > 0 {
			out = append(out, r.Num)
		}
	}
	return out
}

// regionLabel is the label of region r: its own, or its directive's.
func regionLabel(s *progdb.Subprogram, r *progdb.Region) string {
	if r.Label != "" {
		return r.Label
	}
	if d := s.Directive(r.Directive); d != nil && r.Directive > 0 {
		return d.Label
	}
	return ""
}

// holdingRegion is the innermost region of s that holds position pos (0,
// the subprogram, when none does). A critical section is no region of its
// own (seed 002 numbers none), so REG_LABEL(name) of a critical section
// names the region it stands in: its waits and exits are traced there.
func holdingRegion(s *progdb.Subprogram, pos progdb.Pos) int {
	best, bestPos := 0, progdb.Pos{}
	for _, r := range s.Regions {
		if r.Num == 0 || r.Pos.File != pos.File || before(pos, r.Pos) || before(r.End, pos) {
			continue
		}
		if best == 0 || before(bestPos, r.Pos) {
			best, bestPos = r.Num, r.Pos
		}
	}
	return best
}

// before reports whether a comes before b in the same file.
func before(a, b progdb.Pos) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
}

// isPDO reports whether region r is a parallel loop.
func isPDO(s *progdb.Subprogram, r *progdb.Region) bool {
	if d := s.Directive(r.Directive); d != nil && r.Directive > 0 {
		return d.Site == progdb.SiteLoop
	}
	return r.Code == trace.RegionPDO
}

// varNums returns the numbers of the shared variables of s named in vars
// (names s does not have are left out).
func varNums(s *progdb.Subprogram, vars []Ident) []int {
	var out []int
	for _, v := range vars {
		for _, sv := range s.Shared {
			if sv.Name == v.Name {
				out = append(out, sv.Num)
			}
		}
	}
	return out
}

// WithNames adds to the syntax errors of a file (Load's, with the entries
// that parsed in f) the errors Check finds in those entries' names, in the
// order of their positions, so that one run reports every error of a
// request file instead of its syntax first and its names on the next try.
// A name error at the position of a syntax error is left out.
func WithNames(f *File, syntax ErrorList, prog *progdb.Program, lenient bool) ErrorList {
	out := slices.Clone(syntax)
	if f == nil {
		return out
	}
	at := map[Pos]bool{}
	for _, d := range syntax {
		at[d.Pos] = true
	}
	_, errs := Check(f, prog, lenient)
	for _, d := range errs {
		if !at[d.Pos] {
			out = append(out, d)
		}
	}
	file := map[string]int{} // files in the order Load reported them
	for _, d := range out {
		if _, ok := file[d.Pos.File]; !ok {
			file[d.Pos.File] = len(file)
		}
	}
	slices.SortStableFunc(out, func(a, b Diagnostic) int {
		if a.Pos.File != b.Pos.File {
			return file[a.Pos.File] - file[b.Pos.File]
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Col - b.Pos.Col
	})
	return out
}
