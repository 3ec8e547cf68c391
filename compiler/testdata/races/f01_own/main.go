// want race=no
// each iteration writes its own element
package main

func main() {
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[i] = float64(i)
	}
}
