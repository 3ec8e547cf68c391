// want race=no
// held out: a flattened matrix row cleared by its iteration
package main

func main() {
	m := 8
	c := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 8; i++ {
		for j := 0; j < m; j++ {
			c[i*m+j] = 0
		}
	}
}
