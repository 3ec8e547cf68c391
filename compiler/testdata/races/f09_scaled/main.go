// want race=no
// a[2*i] read and written by its own iteration
package main

func main() {
	a := make([]float64, 128)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[2*i] = a[2*i] + 1
	}
}
