// want race=yes line=9
// a[n-1-i] written from a[i]: the two halves exchange
package main

func main() {
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[63-i] = a[i]
	}
}
