// want race=no
// twin of r31: each iteration writes its own element through the re-slice
package main

func main() {
	a := make([]int, 64)
	tail := a[1:]
	//svm:pdo loops(i)
	for i := 0; i < 63; i++ {
		tail[i] = i
	}
}
