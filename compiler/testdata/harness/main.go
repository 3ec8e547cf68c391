// A package whose want comments are wrong on purpose, for TestHarness: a
// wrong column, a wrong message, an error expected as a warning, one
// expectation too many on a line, and an expectation with no diagnostic.
package main

func main() {
	//svm:pdo loops(i)
	for i := range 2 {
		//svm:barrier // want 4:`barrier inside`
		_ = i
	}
	//svm:pdo loops(i)
	for i := range 2 {
		_ = i
		return // want `break inside`
	}
	//svm:lock(x) // want `warning: lock`
	println()
	//svm:atomic // want `atomic` `atomic`
	println()
	println() // want `nothing is reported here`
}
