// want race=no
// two sections take two critical sections in the same order
package main

func main() {
	x, y := 0, 0
	//svm:psection
	{
		//svm:section
		{
			//svm:critical a
			{
				//svm:critical b
				x++
			}
		}
		//svm:section
		{
			//svm:critical a
			{
				//svm:critical b
				y++
			}
		}
	}
	println(x, y)
}
