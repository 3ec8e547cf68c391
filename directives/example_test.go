package directives_test

import (
	"fmt"

	"github.com/svmc/svmc/directives"
)

func ExampleParse() {
	pos := directives.Pos{Filename: "heat.go", Line: 40, Column: 2}
	d, errs := directives.Parse("//svm:pdo loops(i, j) strategy(on_home(T(i, j))) reduction(max: diff)", pos)
	fmt.Println(d.Kind, len(errs))
	for _, l := range d.PDO.Loops {
		fmt.Println(l.Name, l.Pos)
	}
	fmt.Println(d.PDO.Strategy.Kind, d.PDO.Strategy.Template.Name, d.PDO.Strategy.Subs[1].Text)
	fmt.Println(d.PDO.Reductions[0].Op, d.PDO.Reductions[0].Vars[0].Name)

	_, errs = directives.Parse("//svm:pdo loops(i) stratgy(dynamic)", pos)
	fmt.Println(errs)
	// Output:
	// pdo 0
	// i heat.go:40:18
	// j heat.go:40:21
	// on_home T j
	// max diff
	// heat.go:40:21: pdo: unknown clause "stratgy"; did you mean "strategy"?
}
