// want race=no
// b[i] written from a[i-1]: different arrays
package main

func main() {
	a := make([]float64, 64)
	b := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 1; i < 64; i++ {
		b[i] = a[i-1]
	}
}
