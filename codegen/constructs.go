package codegen

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/svmc/svmc/compiler"
	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/trace"
)

// generators is codegen's half of the construct registry: the code of each
// directive kind. TestGenerators fails, naming the kind, when a kind of
// directives.Table has none (noCode for a kind that generates nothing).
var generators = map[directives.Kind]func(g *gen, c *compiler.Construct){
	directives.Processors:      (*gen).processors,
	directives.Template:        (*gen).template,
	directives.Distribute:      (*gen).distribute,
	directives.Redistribute:    (*gen).distribute,
	directives.Create:          (*gen).create,
	directives.Destroy:         (*gen).destroy,
	directives.Undef:           (*gen).undef,
	directives.PDO:             (*gen).pdo,
	directives.PSection:        (*gen).psection,
	directives.Section:         noCode, // its psection generates it
	directives.Barrier:         (*gen).barrier,
	directives.BarrierCheckin:  (*gen).barrierCheckin,
	directives.BarrierCheckout: (*gen).barrierCheckout,
	directives.Critical:        (*gen).critical,
	directives.Lock:            (*gen).lock,
	directives.Atomic:          (*gen).atomic,
	directives.Replicated:      (*gen).replicated,
	directives.Exclusive:       (*gen).exclusive,
	directives.TraceRegion:     (*gen).traceRegion,
	directives.End:             noCode, // the construct it ends generates it
	directives.Shared:          (*gen).shared,
	directives.Coherence:       (*gen).coherence,
	directives.Prefetch:        (*gen).prefetch,
	directives.Ignore:          noCode, // a suppression for the compiler's checks
}

func noCode(*gen, *compiler.Construct) {}

// call is "svm_p.<method>(S, D<args>)", a runtime call with the construct's
// numbers.
func call(c *compiler.Construct, method string, args ...string) string {
	tail := ""
	if len(args) > 0 {
		tail = ", " + strings.Join(args, ", ")
	}
	return fmt.Sprintf("%s.%s(%d, %d%s)", procVar, method, c.Sub.Num, c.Num, tail)
}

func (g *gen) barrier(c *compiler.Construct)         { g.after(c, call(c, "Barrier")) }
func (g *gen) barrierCheckin(c *compiler.Construct)  { g.after(c, call(c, "BarrierCheckin")) }
func (g *gen) barrierCheckout(c *compiler.Construct) { g.after(c, call(c, "BarrierCheckout")) }
func (g *gen) traceRegion(c *compiler.Construct)     { g.region(c, trace.RegionUser) }
func (g *gen) replicated(c *compiler.Construct)      { g.mode(c, "Replicated") }
func (g *gen) exclusive(c *compiler.Construct)       { g.mode(c, "Exclusive") }

func (g *gen) shared(c *compiler.Construct) {
	var vs []string
	for _, v := range c.Sub.Shared {
		if v.Construct == c {
			vs = append(vs, sharedVar(v.Num, v.Name, v.Obj.Type(), true))
		}
	}
	g.after(c, call(c, "Shared", vs...))
}

// sharedVar is the runtime's SharedVar of variable name of type t: its
// storage, and its rows if it is a slice of slices. The variable's own
// address is taken only for an array (a[:] takes it anyway): a slice
// variable whose address is taken is reloaded at every checked access.
func sharedVar(num int, name string, t types.Type, addr bool) string {
	rows := ""
	if isSliceOfSlices(t) {
		rows = fmt.Sprintf(", Rows: %s.RowsOf(%s[:])", rt, name)
	}
	at := ""
	if _, ok := t.Underlying().(*types.Array); ok && addr {
		at = fmt.Sprintf(", Addr: %s.AddrOf(&%s)", rt, name)
	}
	return fmt.Sprintf("%s.SharedVar{Num: %d%s, Store: %s.StorageOf(%s[:])%s}", rt, num, at, rt, name, rows)
}

// coherence gives the pages of the variables a strategy (Proc.Coherence).
func (g *gen) coherence(c *compiler.Construct) {
	d := c.Dir.Coherence
	args := []string{fmt.Sprintf("%q", strings.ToLower(d.Strategy.Name))}
	for i, v := range c.Vars {
		if v == nil {
			continue
		}
		num := 0
		for _, sv := range c.Sub.Shared {
			if sv.Obj == v {
				num = sv.Num
			}
		}
		args = append(args, sharedVar(num, d.Vars[i].Name, v.Type(), false))
	}
	g.after(c, call(c, "Coherence", args...))
}

// prefetch brings the pages of its references (Proc.Prefetch).
func (g *gen) prefetch(c *compiler.Construct) {
	var args []string
	for i, r := range c.Dir.Prefetch.Refs {
		if i >= len(c.RefTypes) || c.RefTypes[i] == nil {
			continue
		}
		x := "(" + expr(r) + ")[:]"
		if isSliceOfSlices(c.RefTypes[i]) {
			args = append(args, fmt.Sprintf("%s.RowsOf(%s)", rt, x))
		} else {
			args = append(args, fmt.Sprintf("[]%s.Storage{%s.StorageOf(%s)}", rt, rt, x))
		}
	}
	g.after(c, call(c, "Prefetch", args...))
}

// isSliceOfSlices reports whether t is [][]E or [N][]E: its rows are
// storage of their own.
func isSliceOfSlices(t types.Type) bool {
	var elem types.Type
	switch u := t.Underlying().(type) {
	case *types.Slice:
		elem = u.Elem()
	case *types.Array:
		elem = u.Elem()
	default:
		return false
	}
	_, ok := elem.Underlying().(*types.Slice)
	return ok
}

// ---- data mapping

func (g *gen) processors(c *compiler.Construct) {
	pd := c.Dir.Processors
	g.after(c, g.declare(c, pd.Name.Name, "Procs", fmt.Sprintf("%s.Processors(%%s, %d, %d, %q%s)", procVar, c.Sub.Num, c.Num, pd.Name.Name, g.extents(pd.Dims))))
}

func (g *gen) template(c *compiler.Construct) {
	td := c.Dir.Template
	if td.Creatable {
		g.after(c, g.declare(c, td.Name.Name, "Template", fmt.Sprintf("%s.CreatableTemplate(%%s, %d, %d, %q, %d)", procVar, c.Sub.Num, c.Num, td.Name.Name, len(td.Dims))))
		return
	}
	g.after(c, g.declare(c, td.Name.Name, "Template", fmt.Sprintf("%s.Template(%%s, %d, %d, %q%s)", procVar, c.Sub.Num, c.Num, td.Name.Name, g.extents(td.Dims))))
}

func (g *gen) distribute(c *compiler.Construct) {
	dd := c.Dir.Distribute
	ts := names(dd.Templates)
	if dd.With != nil {
		g.after(c, call(c, "DistributeWith", dd.With.Name, ts))
		return
	}
	onto := "nil"
	if dd.Onto != nil {
		onto = dd.Onto.Name
	}
	g.after(c, call(c, "Distribute", onto, g.formats(dd.Formats), ts))
}

func (g *gen) create(c *compiler.Construct) {
	g.after(c, fmt.Sprintf("%s.Create(%s, %d, %d%s)", procVar, c.Dir.Create.Name.Name, c.Sub.Num, c.Num, g.extents(c.Dir.Create.Dims)))
}

func (g *gen) destroy(c *compiler.Construct) {
	g.after(c, fmt.Sprintf("%s.Destroy(%s, %d, %d)", procVar, c.Dir.Name.Name, c.Sub.Num, c.Num))
}

func (g *gen) undef(c *compiler.Construct) {
	g.after(c, fmt.Sprintf("%s.Undef(%s, %d, %d)", procVar, c.Dir.Name.Name, c.Sub.Num, c.Num))
}
