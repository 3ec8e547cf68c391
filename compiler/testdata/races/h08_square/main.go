// want race=no
// held out: an element squared through a local
package main

func main() {
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		x := a[i]
		a[i] = x * x
	}
}
