// want race=no
// a[i] read and written by its own iteration
package main

func main() {
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[i] = a[i] * 2
	}
}
