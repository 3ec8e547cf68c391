package compiler

import (
	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/trace"
)

// RegionsPass numbers the trace regions of each subprogram in textual order
// (region 0 is the subprogram) and links each to its parent. The constructs
// that open regions, and their types, are directives.Table's.
var RegionsPass = newPass("regions", "number trace regions and find their parents", (*Package).numberRegions, StructurePass)

// numberRegions fills Sub.Regions and returns every region.
func (p *Package) numberRegions() []*Region {
	var all []*Region
	for _, s := range p.Subs {
		typ := trace.RegionSubroutine
		if s.Main {
			typ = trace.RegionProgram
		}
		s.Regions = []*Region{{Num: 0, Type: typ, Start: s.Decl.Pos(), End: s.Decl.End()}}
		for _, c := range s.Constructs {
			typ := directives.Lookup(c.Kind()).Region
			if typ == directives.NoRegion {
				continue
			}
			r := &Region{Num: len(s.Regions), Type: typ, Construct: c, Start: c.Pos()}
			switch {
			case c.End != nil:
				r.End = c.End.Pos()
			case c.Stmt != nil:
				r.End = c.Stmt.End()
			default:
				r.End = c.Pos()
			}
			r.Label = c.Dir.Label()
			for i := len(s.Regions) - 1; i >= 0; i-- {
				if q := s.Regions[i]; q.Start <= r.Start && r.End <= q.End {
					r.Parent = q
					break
				}
			}
			c.Region = r
			s.Regions = append(s.Regions, r)
		}
		all = append(all, s.Regions...)
	}
	return all
}
