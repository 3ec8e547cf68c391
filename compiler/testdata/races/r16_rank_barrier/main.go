// want race=yes line=11
// a barrier only processor 0 reaches
package main

import "github.com/svmc/svmc/rtlib"

func main() {
	//svm:replicated
	{
		if rtlib.ProcessorID() == 0 {
			//svm:barrier
		}
	}
}
