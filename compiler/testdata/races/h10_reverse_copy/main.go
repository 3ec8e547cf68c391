// want race=no
// held out: b[i] from a reversed a
package main

func main() {
	a := make([]float64, 64)
	b := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		b[i] = a[len(a)-1-i]
	}
}
