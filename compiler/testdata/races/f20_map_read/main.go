// want race=no
// a shared map only read
package main

func main() {
	m := map[int]float64{1: 2}
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[i] = m[i%2]
	}
}
