package replay

import (
	"errors"
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
