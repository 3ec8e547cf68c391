// A pdo with a bad clause leaves its loop a plain one: the other
// constructs of the same function are still checked, so their warnings
// come in the same run as the clause's error (a broken critical directive
// still leaves its whole function out: its end would cascade).
package main

func main() {
	a := make([]int, 10)
	total := 0
	//svm:pdo
	for i := 1; i < len(a); i++ {
		a[i] = a[i-1] + 1
		total += a[i]
	}
	//svm:pdo stratgy(block)
	for i := range a {
		a[i]++
	}
	println(total)
}
