// want kind="critical" line=12 share=0.25 not="imbalance"
// A critical section that serialises a loop: the second processor queues
// 30 ms of 60, and the loop's imbalance is the queue's.
package main

import "time"

func main() {
	s := 0
	//svm:pdo loops(i)
	for i := 0; i < 2; i++ {
		//svm:critical upd
		{
			time.Sleep(30 * time.Millisecond)
			s++
		}
	}
	println(s)
}
