// want race=yes line=10
// two writes of one element from different iterations
package main

func main() {
	a := make([]float64, 65)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[i] = 1
		a[i+1] = 2
	}
}
