// want kind="imbalance" line=9 share=0.33 advice_not="use cyclic"
// A cyclic loop whose last iteration is expensive: cyclic does not help.
package main

import "time"

func main() {
	s := 0
	//svm:pdo loops(i) strategy(cyclic) reduction(+: s)
	for i := 0; i < 4; i++ {
		d := 10 * time.Millisecond
		if i == 3 {
			d = 50 * time.Millisecond
		}
		time.Sleep(d)
		s++
	}
	println(s)
}
