// want kind="imbalance" line=9 share=0.25
// A block-scheduled loop whose second iteration costs twice the first.
package main

import "time"

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 2; i++ {
		time.Sleep(time.Duration(i+1) * 20 * time.Millisecond)
		s++
	}
	println(s)
}
