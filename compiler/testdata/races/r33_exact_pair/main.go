// want race=yes line=9
// a[3*i] written, a[2*i+1] read: iteration 4 reads a[9], which iteration 3 writes
package main

func main() {
	a := make([]int, 128)
	//svm:pdo loops(i)
	for i := 0; i < 32; i++ {
		a[3*i] = a[2*i+1] + 1
	}
}
