// A directive syntax error and a reserved name: two passes that do not
// depend on each other, so both are reported in one run.
package main

var svm_x = 1

func main() {
	//svm:pdo loops(i
	for i := 0; i < 3; i++ {
		println(i, svm_x)
	}
}
