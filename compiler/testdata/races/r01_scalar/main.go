// want race=yes line=10
// a shared scalar written by every iteration
package main

func main() {
	a := make([]float64, 64)
	last := 0.0
	//svm:pdo loops(i)
	for i := 0; i < len(a); i++ {
		last = a[i]
	}
	_ = last
}
