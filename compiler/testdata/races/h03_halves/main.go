// want race=yes line=11
// held out: two iterations write b[i/2] through a local index
package main

func main() {
	a := make([]float64, 64)
	b := make([]float64, 32)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		j := i / 2
		b[j] = a[i]
	}
}
