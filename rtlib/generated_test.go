package rtlib_test

import rt "github.com/svmc/svmc/rtlib"

// Hand-written generated code with the /*line*/ directives codegen emits,
// so that frames point at the user's source. A line directive holds for the
// rest of the file, so these bodies live in a file of their own.

func panicBody(p *rt.Proc) {
	p.PDO(1, 1, rt.DefaultSchedule(), space(0, 3), func(q *rt.Proc, it *rt.Iter) {
		q.Enter(1)
		defer q.Exit(1)
		for it.Next() {
			if it.Index(0) == 2 {
				/*line user.go:42:5*/ panic("boom")
			}
		}
	})
}

func indexPanicBody(p *rt.Proc) {
	var a []int
	/*line user.go:50:2*/ a[5]++
}
