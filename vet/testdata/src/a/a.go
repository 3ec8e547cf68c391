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
