// A Go type error and a directive syntax error: svmc reports both in one
// run, the Go error first in position order like every diagnostic.
package main

func main() {
	var n int = "four"
	//svm:pdo loops(i strategy(block)
	for i := 0; i < n; i++ {
		println(i)
	}
}
