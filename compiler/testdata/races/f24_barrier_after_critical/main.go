// want race=no
// the barrier after the critical section
package main

func main() {
	x := 0
	//svm:replicated
	{
		//svm:critical c
		{
			x++
		}
		//svm:barrier
	}
	println(x)
}
