// want race=yes line=14
// a histogram whose bin is read from data and shifted by one: values that
// repeat send iterations of different processors to one bin
package main

func main() {
	vals := make([]int, 64)
	for i := range vals {
		vals[i] = i % 5
	}
	bins := make([]int, 8)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		bins[vals[i]+1]++
	}
	_ = bins
}
