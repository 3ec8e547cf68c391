// want race=no
// one element per processor
package main

import "github.com/svmc/svmc/rtlib"

func main() {
	parts := make([]float64, 64)
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		//svm:critical parts
		parts[rtlib.ProcessorID()] += a[i]
	}
}
