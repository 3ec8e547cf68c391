// Errors of passes that confine them are reported in one run with the
// errors of the passes after them: a directive syntax error (parse) leaves
// its function out of the later checks, so its end directive does not
// cascade; a reserved name (subprograms) is reported; a barrier in a pdo
// body (structure) in another function is found in the same run. A
// structure error still stops the passes that require structure: the
// shared scalar written in a pdo (classify) is not warned about.
package main

var svm_x = 1

func broken() {
	//svm:critical(alpha
	println(svm_x)
	//svm:end critical
}

func structural(n int) {
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		//svm:barrier
		println(i)
	}
}

func scalar(n int) int {
	s := 0
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		s = i
	}
	return s
}

func main() {
	broken()
	structural(3)
	println(scalar(3))
}
