// want race=no
// a[i] from a[i+20], past the loop's 10 iterations
package main

func main() {
	a := make([]float64, 40)
	//svm:pdo loops(i)
	for i := 0; i < 10; i++ {
		a[i] = a[i+20]
	}
}
