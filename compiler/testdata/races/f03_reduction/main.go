// want race=no
// a sum with a reduction
package main

func main() {
	a := make([]float64, 64)
	sum := 0.0
	//svm:pdo loops(i) reduction(+: sum)
	for i := 0; i < 64; i++ {
		sum += a[i]
	}
	_ = sum
}
