// want race=yes line=12
// a barrier inside a critical section: a deadlock with two processors
package main

func main() {
	x := 0
	//svm:replicated
	{
		//svm:critical c
		{
			x++
			//svm:barrier
		}
	}
	println(x)
}
