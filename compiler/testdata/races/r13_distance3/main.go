// want race=yes line=9
// a[i] reads a[i-3]
package main

func main() {
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 3; i < 64; i++ {
		a[i] = a[i] + a[i-3]
	}
}
