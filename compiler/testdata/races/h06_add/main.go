// want race=no
// held out: elementwise sum of two arrays into a third
package main

func main() {
	a := make([]float64, 64)
	b := make([]float64, 64)
	c := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		c[i] = a[i] + b[i]
	}
}
