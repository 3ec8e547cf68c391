// want race=yes line=9
// held out: neighbours swapped in place
package main

func main() {
	a := make([]float64, 65)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[i], a[i+1] = a[i+1], a[i]
	}
}
