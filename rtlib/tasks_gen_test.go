package rtlib_test

import rt "github.com/svmc/svmc/rtlib"

// Hand-written generated code with /*line*/ directives (they hold for the
// rest of the file): a section that panics on processor 2 of 3.

func sectionPanicBody(p *rt.Proc) {
	p.PSection(1, 1, []rt.Section{
		{Dir: 2, Body: func(*rt.Proc) {}},
		{Dir: 3, Body: func(*rt.Proc) {}},
		{Dir: 4, Body: func(q *rt.Proc) {
			q.Enter(1)
			defer q.Exit(1)
			var m map[string]int
			/*line user.go:61:4*/ m["section"]++
		}},
	})
}
