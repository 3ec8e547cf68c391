// want race=yes line=11
// tail is a re-slice of a: every iteration writes tail[0], which is a[1]
package main

func main() {
	a := make([]int, 64)
	tail := a[1:]
	//svm:pdo loops(i)
	for i := 0; i < 63; i++ {
		a[i+1] = i
		tail[0] = i
	}
}
