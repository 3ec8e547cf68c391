// Values a directive gives the runtime are checked where they are written:
// constant extents, block and chunk sizes must be positive and fit an int,
// a constant dimension lo:hi may not be empty, a processor arrangement may
// not be enormous, a loop label names one loop of its subprogram, coherence
// names a known strategy and variables, prefetch names what is in scope,
// and a template created twice without a destroy between loses its shape.
package main

const (
	zero = 0
	huge = 1 << 40
)

func shapes(n int, a []int) {
	//svm:template T(-3) // want 19:`^template: -3 must be positive$`
	//svm:template U(zero) // want 19:`^template: zero must be positive$`
	//svm:template V(5:2) // want 19:`^template: the dimension 5:2 is empty`
	//svm:processors P(0) // want 21:`^processors: 0 must be positive$`
	//svm:processors Q(65536, 65536) // want 2:`^processors Q has 4294967296 elements; an arrangement has at most 1048576$`
	//svm:template W(n)
	//svm:distribute (cyclic(huge)) :: W // want 27:`^distribute: huge is too large$`
	//svm:pdo loops(i) strategy(dynamic(0)) // want 38:`^pdo: 0 must be positive$`
	for i := 0; i < n; i++ {
		a[i] = i
	}
	//svm:pdo loops(i) strategy(guided(n)) // a variable chunk is checked at run time
	for i := 0; i < n; i++ {
		a[i] = i
	}
}

func labels(n int, a []int) {
	//svm:pdo loops(i) label(sweep)
	for i := 0; i < n; i++ {
		a[i] = i
	}
	//svm:pdo loops(i) label(sweep) // want 27:`^pdo label\(sweep\) is used twice in labels \(first at line 33\): request files name a loop by its label; give each loop its own$`
	for i := 0; i < n; i++ {
		a[i] += i
	}
}

func svm(a []int) {
	//svm:coherence(bogus) :: a // want 28:`^warning: coherence: a is not named in a shared directive of svm` 18:`^coherence\(bogus\): unknown coherence strategy \(the strategies are invalidate, multiple_writers\)$`
	//svm:coherence(invalidat) :: a // want 32:`^warning: coherence: a is not named` 18:`did you mean "invalidate"\?`
	//svm:coherence(multiple_writers) :: b // want 39:`^coherence: b is not a variable in scope$`
	//svm:prefetch c[0:2] // want `undefined: c`
}

func lifeCycle(n int) {
	//svm:template T(:)
	//svm:create T(n)
	//svm:create T(2 * n) // want 2:`^warning: template T is created again without a destroy since its create at line 52$`
	//svm:destroy T
	//svm:destroy T // want 2:`^warning: template T is destroyed again without a create since its destroy at line 54$`
}

func main() {
	a := make([]int, 8)
	shapes(8, a)
	labels(8, a)
	svm(a)
	lifeCycle(4)
	//svm:processors R(2, nprocs()/2) // an extent of nprocs() is checked at run time (0 on one processor only)
}
