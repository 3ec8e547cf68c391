package view

import (
	"strconv"
	"strings"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

func itoa(n int) string { return strconv.Itoa(n) }

// siteKey identifies a site: a region of a given type, or a directive
// (code -1) named by a wait or an instant.
type siteKey struct{ sub, dir, code int }

// sites numbers the sites of a timeline and describes them from the program
// information (numbers only when there is none).
type sites struct {
	prog     *progdb.Program
	index    map[siteKey]int
	measures map[measureKey]int
	gos      map[string]int // go statements
	list     []Site
}

type measureKey struct {
	level int
	name  string
}

func newSites(prog *progdb.Program) *sites {
	return &sites{prog: prog, index: make(map[siteKey]int), measures: make(map[measureKey]int)}
}

// measure returns the index of the site of the measured interval name at
// the given level.
func (s *sites) measure(level int, name string) int {
	k := measureKey{level, name}
	if i, ok := s.measures[k]; ok {
		return i
	}
	label := name
	if label == "" {
		label = `""`
	}
	s.measures[k] = len(s.list)
	s.list = append(s.list, Site{Name: label, Kind: "measure", Label: name, Level: level, Region: -1,
		Text: "MeasureStart(" + strconv.Quote(name) + "), level " + itoa(level)})
	return len(s.list) - 1
}

// get returns the index of the site (sub, dir) seen as a region of type
// code, or as a directive when code is -1.
func (s *sites) get(sub, dir, code int) int {
	k := siteKey{sub, dir, code}
	if i, ok := s.index[k]; ok {
		return i
	}
	st := s.describe(sub, dir, code)
	s.index[k] = len(s.list)
	s.list = append(s.list, st)
	return len(s.list) - 1
}

func (s *sites) describe(sub, dir, code int) Site {
	st := Site{Sub: sub, Dir: dir, Func: s.prog.SubName(sub), Region: -1}
	var sp *progdb.Subprogram
	if s.prog != nil {
		sp = s.prog.Sub(sub)
	}
	if sp != nil {
		st.Func, st.File, st.Line = sp.Name, sp.Pos.File, sp.Pos.Line
		if d := sp.Directive(dir); d != nil {
			st.Kind, st.SiteKind, st.Label, st.Text = d.Kind, d.Site, d.Label, d.Text
			st.File, st.Line = d.Pos.File, d.Pos.Line
		}
		if code >= 0 {
			if r := regionOf(sp, dir, code); r != nil {
				st.Region = r.Num
				if r.Label != "" {
					st.Label = r.Label
				}
				if r.Pos.File != "" {
					st.File, st.Line = r.Pos.File, r.Pos.Line
				}
				if r.End.File == st.File {
					st.EndLine = r.End.Line
				}
			}
		}
	}
	st.Name = siteName(&st, code)
	return st
}

// regionOf is the progdb region opened by directive dir with type code
// (dir 0: the subprogram's own region).
func regionOf(sp *progdb.Subprogram, dir, code int) *progdb.Region {
	var found *progdb.Region
	for _, r := range sp.Regions {
		if r.Directive != dir {
			continue
		}
		if r.Code == code {
			return r
		}
		if dir == 0 {
			found = r // region 0 is the subprogram whatever its code says
		}
	}
	return found
}

// siteName is the short name drawn inside a bar: the function for a
// subprogram, else the construct and its label or line.
func siteName(st *Site, code int) string {
	if st.Dir == 0 {
		return st.Func
	}
	what := st.Kind
	if what == "" {
		if code >= 0 {
			what = regionKind(code).String()
		} else {
			what = "directive " + itoa(st.Dir)
		}
	}
	switch {
	case st.Label != "":
		return what + " " + st.Label
	case st.File != "":
		return what + " " + st.Where()
	}
	return what + " (" + st.Func + ")"
}

// call returns the index of the site of message-passing call site n (in
// subprogram sub) of call kind k.
func (s *sites) call(sub, n, k int) int {
	return s.statement(siteKey{sub, -n - 1, k}, sub, trace.CallKindName(k), "rtlib.", s.prog.Call(n))
}

// mutex returns the index of the site of mutex site n (a lock statement
// of a sync mutex of the program's own): its subprogram and line.
func (s *sites) mutex(n int) int {
	m, sub := s.prog.MutexSite(n), 0
	if m != nil {
		sub = m.Sub
	}
	return s.statement(siteKey{sub, -n - 1, -3}, sub, "mutex", "sync ", m)
}

// statement returns the index of the site of a numbered statement of
// subprogram sub (a message call, a mutex lock): kind is what it is
// without program information, c its entry there (nil when unknown), pkg
// what its text puts before c.Func.
func (s *sites) statement(key siteKey, sub int, kind, pkg string, c *progdb.Call) int {
	if i, ok := s.index[key]; ok {
		return i
	}
	st := Site{Sub: sub, Func: s.prog.SubName(sub), Kind: kind, Region: -1}
	if c != nil {
		st.Kind, st.File, st.Line = c.Func, c.Pos.File, c.Pos.Line
		st.Text = pkg + c.Func + " at " + c.Pos.String()
	}
	st.Name = st.Kind
	if st.File != "" {
		st.Name += " " + st.Where()
	}
	s.index[key] = len(s.list)
	s.list = append(s.list, st)
	return len(s.list) - 1
}

// access returns the index of the site of shared access n (the
// "instruction address" of a page fault): its line, named by the variable.
func (s *sites) access(n int) int {
	key := siteKey{0, -n - 1, -2}
	if i, ok := s.index[key]; ok {
		return i
	}
	st := Site{Func: "access " + itoa(n), Kind: "access", Region: -1}
	if a := s.prog.Access(n); a != nil {
		st.Sub, st.File, st.Line = a.Sub, a.Pos.File, a.Pos.Line
		if sp := s.prog.Sub(a.Sub); sp != nil {
			st.Func = sp.Name
		}
		what := "read of "
		if a.Write {
			what = "write of "
		}
		st.Text = what + a.Name + " at " + a.Pos.String()
	}
	st.Name = "access " + st.Where()
	s.index[key] = len(s.list)
	s.list = append(s.list, st)
	return len(s.list) - 1
}

// goStmt returns the index of the site of a go statement ("file:line:col",
// from goroutine-start): a goroutine's interval names it.
func (s *sites) goStmt(at string) int {
	if i, ok := s.gos[at]; ok {
		return i
	}
	st := Site{Func: "goroutine", Kind: "goroutine", Region: -1, Name: "goroutine " + at, Text: "go statement at " + at}
	if i := strings.LastIndexByte(at, ':'); i > 0 {
		if j := strings.LastIndexByte(at[:i], ':'); j > 0 {
			st.File = at[:j]
			st.Line, _ = strconv.Atoi(at[j+1 : i])
		}
	}
	if s.gos == nil {
		s.gos = map[string]int{}
	}
	s.gos[at] = len(s.list)
	s.list = append(s.list, st)
	return len(s.list) - 1
}
