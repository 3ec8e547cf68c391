// want race=no
// a struct declared per iteration
package main

func main() {
	a := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		var s struct{ x int }
		s.x = i
		a[i] = s.x
	}
}
