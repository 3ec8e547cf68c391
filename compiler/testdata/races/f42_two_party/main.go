// want race=no
// the two parts of an exchange: the loop has two iterations, so the else
// of if me == 0, and the then of if me != 1, are one iteration's alone
package main

import "fmt"

func main() {
	got := make([]int, 2)
	sent := 0
	//svm:pdo loops(me)
	for me := 0; me < 2; me++ {
		if me == 0 {
			sent = 42
		} else {
			got[0] = 7
		}
		if me != 1 {
			got[1] = 9
		}
	}
	fmt.Println(sent, got)
}
