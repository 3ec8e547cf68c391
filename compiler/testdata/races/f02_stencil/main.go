// want race=no
// b[i] from neighbours of another array
package main

func main() {
	a := make([]float64, 64)
	b := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 1; i < 63; i++ {
		b[i] = a[i-1] + a[i+1]
	}
}
