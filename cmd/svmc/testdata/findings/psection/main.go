// want kind="unequal work" line=10 share=0.375
// Two sections of cost 1:4: the short one's processor waits 30 ms of 80.
package main

import "time"

func main() {
	a, b := 0, 0
	time.Sleep(time.Millisecond)
	//svm:psection
	{
		//svm:section
		{
			time.Sleep(10 * time.Millisecond)
			a++
		}
		//svm:section
		{
			time.Sleep(40 * time.Millisecond)
			b++
		}
	}
	println(a + b)
}
