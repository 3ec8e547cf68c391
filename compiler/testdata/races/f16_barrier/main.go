// want race=no
// a barrier every processor reaches
package main

import "github.com/svmc/svmc/rtlib"

func main() {
	//svm:replicated
	{
		if rtlib.ProcessorID() == 0 {
			println("leader")
		}
		//svm:barrier
	}
}
