// want race=yes line=10
// the index is a variable of the enclosing code
package main

func main() {
	a := make([]int, 64)
	k := 3
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[k] = i
	}
}
