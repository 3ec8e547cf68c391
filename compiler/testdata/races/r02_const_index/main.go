// want race=yes line=9
// every processor adds into a[0]
package main

func main() {
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 1; i < len(a); i++ {
		a[0] += a[i]
	}
}
