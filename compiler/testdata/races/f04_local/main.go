// want race=no
// a variable declared in the body
package main

func main() {
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		t := a[i] * 2
		a[i] = t
	}
}
