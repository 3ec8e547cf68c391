// want race=yes line=14
// a closure of main that counts into a variable it captured, called by
// every iteration
package main

import "fmt"

func main() {
	misses := 0
	miss := func() { misses++ }
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		if i%3 != 0 {
			miss()
		}
	}
	fmt.Println(misses)
}
