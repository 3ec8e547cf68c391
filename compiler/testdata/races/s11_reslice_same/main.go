// want race=no
// twin of r32: the body reads and writes one element through the same re-slice
package main

func main() {
	a := make([]int, 65)
	tail := a[1:]
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		tail[i] = tail[i] * 2
	}
}
