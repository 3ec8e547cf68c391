package a

// Bump has a loop-carried dependence and a write conflict in its pdo.
func Bump(a, c []float64, k int) {
	//svm:pdo loops(i)
	for i := 1; i < len(a); i++ {
		a[i] = a[i-1] + 1 // want `loop-carried dependence in the pdo at line 5: a\[i-1\] is read here`
		c[k] = a[i]       // want `write conflict: c\[k\] is written at an index that does not depend on the distributed loop variable i`
	}
}

// Typo has a directive error.
func Typo() {
	//svm:barier // want `unknown directive "barier"; did you mean "barrier"\?`
}

// Own is race-free.
func Own(a []float64) {
	//svm:pdo loops(i)
	for i := 0; i < len(a); i++ {
		a[i] = float64(i)
	}
}

// First records the first element in the one iteration that has it, and
// Late sets a bound in one iteration that the others read.
func First(a []float64, out []float64) (first float64) {
	//svm:pdo loops(i)
	for i := 0; i < len(a); i++ {
		if i == 0 {
			first = a[i]
			out[0] = a[i]
		}
	}
	return first
}

func Late(a []float64, over []bool) {
	bound := 0.0
	//svm:pdo loops(i)
	for i := 0; i < len(a); i++ {
		if i == 0 {
			bound = a[0] // want `bound is shared and assigned in the body of the pdo at line 40 by one iteration \(the condition at line 42\) and used at line 45`
		}
		over[i] = a[i] > bound
	}
}
