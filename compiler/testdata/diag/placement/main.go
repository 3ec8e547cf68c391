// Directives outside the functions the processors run (at package level, in
// init) and directives inside an expression. The directives in a function
// literal of a package variable, in a function literal in main and in a
// case clause are well placed and give no error.
package main

//svm:template T(10) // want 1:`^template directive outside a function body: directives stand between the statements of a function \(a template that several functions use is a package variable of type \*rtlib\.Template, named by a template directive in a function\)$`
var global = 1

var hook = func() {
	//svm:barrier
	println("hook")
}

func init() {
	//svm:barrier // want 2:`^barrier directive in func init: directives run on the processors, which start with main; move it into main or a function main calls$`
	global++
}

func main() {
	xs := []int{
		//svm:barrier // want 3:`^barrier directive inside a short variable declaration \(line 21\): a directive stands between statements, on a line of its own$`
		1, 2,
	}
	println(xs, global,
		//svm:barrier // want 3:`^barrier directive inside a call \(line 25\)`
		hook)
	func() {
		//svm:barrier
		println("a function literal in main is fine")
	}()
	switch global {
	case 1:
		//svm:barrier
		println("so is a case clause")
	}
}

// A table built in init: its pdo runs serially, as plain Go.
func init() {
	//svm:pdo loops(i) // want 2:`^warning: pdo in func init runs all its iterations serially: the packages are initialised before main starts the processors; move the loop into main or a function main calls to run it in parallel$`
	for i := range 3 {
		global += i
	}
}

// A table built by a function literal called where it stands: the same.
var squares = func() []int {
	out := make([]int, 4)
	//svm:pdo loops(i) // want 2:`^warning: pdo in the initialiser of squares runs all its iterations serially: the packages' variables are initialised before main starts the processors; make squares a function that main calls to run the loop in parallel$`
	for i := range out {
		out[i] = i * i
	}
	return out
}()

// Literals of init: one that registers a handler runs when main calls it,
// a subprogram of its own; one that uses a variable of init stays in it.
var handlers = map[string]func([]int) int{}

func init() {
	handlers["sum"] = func(xs []int) int {
		s := 0
		//svm:pdo loops(i) reduction(+: s)
		for i := range xs {
			s += xs[i]
		}
		return s
	}
	scale := 3
	handlers["scaled"] = func(xs []int) int {
		s := 0
		//svm:pdo loops(i) reduction(+: s) // want 3:`^warning: pdo in a function literal of func init runs all its iterations serially: the literal uses scale, a variable of init \(line 70\), so svmc cannot make it a subprogram of its own; declare scale at package level, or build the literal in a function main calls$`
		for i := range xs {
			s += scale * xs[i]
		}
		//svm:barrier // want 3:`^barrier directive in a function literal of func init: the literal uses scale`
		return s
	}
	func() {
		//svm:pdo loops(i) // want 3:`^warning: pdo in func init runs all its iterations serially`
		for i := range 2 {
			handlers[string(rune(i))] = nil
		}
	}()
}
