// want race=yes line=9
// a[i] reads a[i-1] written by the previous iteration
package main

func main() {
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 1; i < 64; i++ {
		a[i] = a[i-1] + 1
	}
}
