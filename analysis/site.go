package analysis

import (
	"fmt"
	"strconv"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// Site ties a row of the report to the source: a subprogram and one of its
// directives (Dir 0 is the subprogram itself), with what the program
// information file says about them. Without program information only Sub and
// Dir are set and Func is "sub N".
type Site struct {
	Sub   int    `json:"sub"`             // subprogram number
	Dir   int    `json:"dir"`             // directive number, 0 for the subprogram
	Func  string `json:"func"`            // Go function name ("F", "T.M")
	Main  bool   `json:"main,omitempty"`  // Func is the program's main
	Kind  string `json:"kind,omitempty"`  // directive kind ("pdo", "barrier", ...)
	Text  string `json:"text,omitempty"`  // directive text ("//svm:pdo ...")
	Label string `json:"label,omitempty"` // pdo label, trace_region or critical name
	File  string `json:"file,omitempty"`  // source file, relative to the package
	Line  int    `json:"line,omitempty"`
	Col   int    `json:"col,omitempty"`
}

// Where is "file:line", or "sub S dir D" without program information.
func (s Site) Where() string {
	if s.File != "" {
		return s.File + ":" + strconv.Itoa(s.Line)
	}
	if s.Sub == 0 && s.Dir == 0 {
		return "-" // a test binary's main, not the program's code
	}
	if s.Dir == 0 {
		return fmt.Sprintf("sub %d", s.Sub)
	}
	return fmt.Sprintf("sub %d dir %d", s.Sub, s.Dir)
}

// progInfo answers questions about the program information file; a nil
// program gives numeric names.
type progInfo struct {
	p *progdb.Program
}

func (pi progInfo) sub(num int) *progdb.Subprogram {
	if pi.p == nil {
		return nil
	}
	return pi.p.Sub(num)
}

func (pi progInfo) directive(sub, dir int) *progdb.Directive {
	s := pi.sub(sub)
	if s == nil || dir <= 0 {
		return nil
	}
	return s.Directive(dir)
}

// site describes directive dir of subprogram sub.
func (pi progInfo) site(sub, dir int) Site {
	st := Site{Sub: sub, Dir: dir, Func: pi.p.SubName(sub)}
	s := pi.sub(sub)
	if s == nil {
		return st
	}
	st.Func, st.Main = s.Name, s.Main
	st.File, st.Line, st.Col = s.Pos.File, s.Pos.Line, s.Pos.Col
	if dir == 0 {
		return st
	}
	d := s.Directive(dir)
	if d == nil {
		return st
	}
	st.Kind, st.Text, st.Label = d.Kind, d.Text, d.Label
	st.File, st.Line, st.Col = d.Pos.File, d.Pos.Line, d.Pos.Col
	return st
}

// mutexSite describes the lock statement of mutex site n: its
// subprogram, its method as the kind ("Mutex.Lock"), its position; Dir
// stays 0, the statement being no directive.
func (pi progInfo) mutexSite(n int) Site {
	m := pi.p.MutexSite(n)
	if m == nil {
		st := pi.site(0, 0)
		st.Kind = "mutex"
		return st
	}
	st := pi.site(m.Sub, 0)
	st.Kind, st.Text = m.Func, m.Func
	st.File, st.Line, st.Col = m.Pos.File, m.Pos.Line, m.Pos.Col
	return st
}

// region returns the progdb region opened by directive dir of sub with the
// given type code (dir 0: region 0, the subprogram), or nil.
func (pi progInfo) region(sub, dir, code int) *progdb.Region {
	s := pi.sub(sub)
	if s == nil {
		return nil
	}
	var found *progdb.Region
	for _, r := range s.Regions {
		if r.Directive == dir && (r.Code == code || dir == 0) {
			if r.Code == code {
				return r
			}
			found = r
		}
	}
	return found
}

// regionSite describes a trace region: the directive that opens it, or the
// subprogram, with the region's own position and label when progdb has it.
func (pi progInfo) regionSite(sub, dir, code int) (Site, int) {
	st := pi.site(sub, dir)
	r := pi.region(sub, dir, code)
	if r == nil {
		return st, -1
	}
	if r.Label != "" {
		st.Label = r.Label
	}
	if r.Pos.File != "" {
		st.File, st.Line, st.Col = r.Pos.File, r.Pos.Line, r.Pos.Col
	}
	return st, r.Num
}

// enclosingRegion is the innermost region of sub whose source range holds
// directive dir: the region a request must name to trace the directive.
func (pi progInfo) enclosingRegion(sub, dir int) *progdb.Region {
	s := pi.sub(sub)
	if s == nil {
		return nil
	}
	for _, r := range s.Regions {
		if dir > 0 && r.Directive == dir {
			return r // the directive opens a region of its own (pdo, ...)
		}
	}
	if d := s.Directive(dir); d != nil {
		return pi.regionAt(sub, d.Pos)
	}
	return pi.regionAt(sub, progdb.Pos{})
}

// regionAt is the innermost region of sub whose source range holds pos;
// region 0, the subprogram, for a zero pos.
func (pi progInfo) regionAt(sub int, pos progdb.Pos) *progdb.Region {
	s := pi.sub(sub)
	if s == nil {
		return nil
	}
	var best *progdb.Region
	for _, r := range s.Regions {
		if pos.Line > 0 && !(posLE(r.Pos, pos) && posLE(pos, r.End)) {
			continue
		}
		if pos.Line == 0 && r.Num != 0 {
			continue
		}
		if best == nil || posLE(best.Pos, r.Pos) {
			best = r
		}
	}
	return best
}

func posLE(a, b progdb.Pos) bool {
	if a.File != b.File && a.File != "" && b.File != "" {
		return false
	}
	return a.Line < b.Line || a.Line == b.Line && a.Col <= b.Col
}

// strategy is how a pdo is scheduled, as the program information file
// records it ("?" when it does not).
func (pi progInfo) strategy(sub, dir int) string {
	d := pi.directive(sub, dir)
	if d == nil || d.Schedule == nil {
		return "?"
	}
	return d.Schedule.String()
}

// regionTypeName is trace.RegionTypeName.
func regionTypeName(code int) string { return trace.RegionTypeName(code) }
