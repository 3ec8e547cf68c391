// want race=no
// c[i][j] over an inner loop, indexed by i
package main

func main() {
	a := make([]float64, 8)
	b := make([]float64, 8)
	c := make([][]float64, 8)
	for r := range c {
		c[r] = make([]float64, 8)
	}
	//svm:pdo loops(i)
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			c[i][j] = a[i] * b[j]
		}
	}
}
