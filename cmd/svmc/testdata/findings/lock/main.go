// want kind="lock" line=11 share=0.25
// A lock held for the whole iteration: a convoy.
package main

import "time"

func main() {
	x := 0
	//svm:pdo loops(i)
	for i := 0; i < 2; i++ {
		//svm:lock(x)
		x += sleepy()
	}
	println(x)
}

func sleepy() int {
	time.Sleep(30 * time.Millisecond)
	return 1
}
