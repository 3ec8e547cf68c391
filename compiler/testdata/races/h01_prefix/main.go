// want race=yes line=9
// held out: a prefix sum reads the previous element
package main

func main() {
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 1; i < 64; i++ {
		a[i] += a[i-1]
	}
}
