// want race=yes line=10
// a sum into a shared scalar without a reduction
package main

func main() {
	a := make([]float64, 64)
	sum := 0.0
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		sum += a[i]
	}
	_ = sum
}
