// want race=yes line=11
// an inner, non-distributed loop writes c[j] on every processor
package main

func main() {
	a := make([]float64, 64)
	c := make([]float64, 8)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		for j := 0; j < 8; j++ {
			c[j] += a[i]
		}
	}
}
