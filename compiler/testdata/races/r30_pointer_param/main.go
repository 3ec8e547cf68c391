// want race=yes line=9
// a pointer parameter written by every iteration: all write the variable it points to
package main

func fill(last *int, a []int) {
	//svm:pdo loops(i)
	for i := 0; i < len(a); i++ {
		a[i] = i
		*last = a[i]
	}
}

func main() {
	x := 0
	fill(&x, make([]int, 64))
	_ = x
}
