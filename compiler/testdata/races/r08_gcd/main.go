// want race=yes line=9
// a[2*i] written, a[i] read: some iterations meet
package main

func main() {
	a := make([]float64, 128)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[2*i] = a[i]
	}
}
