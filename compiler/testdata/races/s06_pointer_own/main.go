// want race=no
// twin of r27: each iteration's pointer is to its own element
package main

func main() {
	out := make([]float64, 64)
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		p := &out[i]
		*p = a[i] * 2
	}
}
