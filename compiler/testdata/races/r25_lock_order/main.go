// want race=yes line=21
// two sections take two critical sections in opposite orders
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
			//svm:critical b
			{
				//svm:critical a
				y++
			}
		}
	}
	println(x, y)
}
