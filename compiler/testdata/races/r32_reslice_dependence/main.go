// want race=yes line=10
// tail is a shifted by one: a[i] written and tail[i] (a[i+1]) read depend across iterations
package main

func main() {
	a := make([]int, 65)
	tail := a[1:]
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[i] = tail[i] + 1
	}
}
