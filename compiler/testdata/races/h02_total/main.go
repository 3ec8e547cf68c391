// want race=yes line=10
// held out: every processor adds into total[0]
package main

func main() {
	a := make([]float64, 64)
	var total [1]float64
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		total[0] += a[i]
	}
	_ = total
}
