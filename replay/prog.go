package replay

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// ProgAttr is the stream attribute that carries the program information.
const ProgAttr = "svmc program info"

// ErrNoProgramInfo is returned by ProgramInfo for a trace without the
// "svmc program info" stream attribute.
var ErrNoProgramInfo = errors.New(`the trace has no program information (stream attribute "svmc program info")`)

// ProgramInfo decodes the program information a trace carries in its
// stream attributes. It rejects program information files of a version it
// does not know (progdb's error); it returns ErrNoProgramInfo when there is
// none. name is used in error messages.
func ProgramInfo(attrs []trace.Attr, name string) (*progdb.Program, error) {
	for _, a := range attrs {
		if a.Key == ProgAttr {
			return progdb.Unmarshal([]byte(a.Value), name+`: stream attribute "svmc program info"`)
		}
	}
	return nil, ErrNoProgramInfo
}

// Prog answers what the replay needs to know about a site from the program
// information file; a nil program knows nothing.
type Prog struct{ P *progdb.Program }

// Directive returns directive dir of subprogram sub, or nil.
func (pi Prog) Directive(sub, dir int) *progdb.Directive {
	if pi.P == nil || dir <= 0 {
		return nil
	}
	if s := pi.P.Sub(sub); s != nil {
		return s.Directive(dir)
	}
	return nil
}

// HasSections reports whether the program may have sections, whose
// barriers wait for teams (teams.go): true when its information has a
// section directive, or when there is no information.
func (pi Prog) HasSections() bool {
	if pi.P == nil {
		return true
	}
	for _, s := range pi.P.Subprograms {
		for _, d := range s.Directives {
			if d.Site == progdb.SiteSection {
				return true
			}
		}
	}
	return false
}

// IsAtomic reports whether lock records of this site come from an atomic
// update, which holds its lock for no time and writes no release-lock.
func (pi Prog) IsAtomic(sub, dir int) bool {
	d := pi.Directive(sub, dir)
	return d != nil && d.Site == progdb.SiteAtomic
}

// ImplicitBarrier reports whether the barrier records of a site are those
// of the implicit barrier that ends its construct, and whether the program
// information knows the site.
func (pi Prog) ImplicitBarrier(sub, dir int) (implicit, known bool) {
	d := pi.Directive(sub, dir)
	if d == nil {
		return false, false
	}
	return d.ImplicitBarrier, true
}

// CriticalKey is the lock a critical section directive takes: "critical:"
// + its name ("" for the unnamed one), or its site without program
// information.
func (pi Prog) CriticalKey(sub, dir int) string {
	if d := pi.Directive(sub, dir); d != nil {
		return "critical:" + d.Label
	}
	return "site:" + strconv.Itoa(sub) + "." + strconv.Itoa(dir)
}

// CheckInfo checks program information given apart from the trace (svmc
// report --info) against the trace's own, when it has one: information of
// another program, or of another build of it, would put every region and
// directive at the wrong line. It returns nil when they agree or the trace
// carries none.
func CheckInfo(given *progdb.Program, attrs []trace.Attr, name string) error {
	own, err := ProgramInfo(attrs, name)
	if err != nil || given == nil {
		return nil // none, or unreadable: the given information is all there is
	}
	if diff := programDiff(given, own); diff != "" {
		return fmt.Errorf("the program information of --info is not the one %s was written with: %s; leave --info out, the trace carries its own", name, diff)
	}
	return nil
}

// programDiff names the first difference of two programs' numbering: the
// package, a subprogram, or a directive. "" when they agree.
func programDiff(a, b *progdb.Program) string {
	if a.Package != b.Package {
		return fmt.Sprintf("package %s there, %s in the trace", a.Package, b.Package)
	}
	if len(a.Subprograms) != len(b.Subprograms) {
		return fmt.Sprintf("%d subprograms there, %d in the trace", len(a.Subprograms), len(b.Subprograms))
	}
	at := func(p progdb.Pos) string { return fmt.Sprintf("%s:%d", p.File, p.Line) }
	for i, sa := range a.Subprograms {
		sb := b.Subprograms[i]
		if sa.Num != sb.Num || sa.Name != sb.Name || sa.Pos != sb.Pos {
			return fmt.Sprintf("subprogram %d is %s at %s there, %s at %s in the trace", sb.Num, sa.Name, at(sa.Pos), sb.Name, at(sb.Pos))
		}
		if len(sa.Directives) != len(sb.Directives) {
			return fmt.Sprintf("%s has %d directives there, %d in the trace", sa.Name, len(sa.Directives), len(sb.Directives))
		}
		for j, da := range sa.Directives {
			if db := sb.Directives[j]; da.Kind != db.Kind || da.Pos != db.Pos {
				return fmt.Sprintf("directive %d of %s is %s at %s there, %s at %s in the trace", db.Num, sa.Name, da.Kind, at(da.Pos), db.Kind, at(db.Pos))
			}
		}
	}
	return ""
}

// Info is the program information to read a trace with: given (checked
// against the trace's own by CheckInfo) or else the trace's own; nil when
// there is neither.
func Info(given *progdb.Program, attrs []trace.Attr, name string) (*progdb.Program, error) {
	if err := CheckInfo(given, attrs, name); err != nil {
		return nil, err
	}
	if given != nil {
		return given, nil
	}
	p, err := ProgramInfo(attrs, name)
	if err != nil && err != ErrNoProgramInfo {
		return nil, err
	}
	return p, nil
}

// Processors is the trace's "processors" attribute, 0 when it is missing
// or not a plausible processor count.
func Processors(attrs []trace.Attr) int {
	for _, a := range attrs {
		if a.Key == "processors" {
			if n, err := strconv.Atoi(a.Value); err == nil && n > 0 && n <= 1<<16 {
				return n
			}
		}
	}
	return 0
}

// MessageFile is the program information's name (relative to the main
// package's directory) of file, as a message of the run that wrote attrs
// names it: relative to the directory the run started in, or absolute
// (trace.AttrStartDir). A trace without those attributes keeps file as it
// is.
func MessageFile(attrs []trace.Attr, file string) string {
	var prog, start string
	for _, a := range attrs {
		switch a.Key {
		case trace.AttrProgramDir:
			prog = a.Value
		case trace.AttrStartDir:
			start = a.Value
		}
	}
	if prog == "" || start == "" || file == "" {
		return file
	}
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(start, filepath.FromSlash(file))
	}
	rel, err := filepath.Rel(prog, abs)
	if err != nil {
		return file
	}
	return filepath.ToSlash(rel)
}
