// want race=yes line=23
// the write to a package-level variable is five calls below the body (the
// call graph of the SSA form follows it to any depth)
package main

var seen []int

func a(i int) { b(i) }

func b(i int) { c(i) }

func c(i int) { d(i) }

func d(i int) { e(i) }

func e(i int) { seen = append(seen, i) }

func main() {
	x := 0
	_ = x
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a(i)
	}
}
