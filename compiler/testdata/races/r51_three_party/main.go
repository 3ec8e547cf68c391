// want race=yes line=16
// three iterations: the else of if me == 0 is two of them, which both
// write the same element
package main

import "fmt"

func main() {
	got := make([]int, 1)
	sent := 0
	//svm:pdo loops(me)
	for me := 0; me < 3; me++ {
		if me == 0 {
			sent = 42
		} else {
			got[0] = me
		}
	}
	fmt.Println(sent, got)
}
