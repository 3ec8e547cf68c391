// want race=yes line=11
// each iteration writes the next element through a local, which the
// next iteration reads
package main

func main() {
	a := make([]int, 65)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		next := i + 1
		a[next] = a[i] + 1
	}
	_ = a
}
