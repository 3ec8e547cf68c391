// want race=yes line=10
// b is a, so a[i] written and b[i+1] read are a loop-carried (anti) dependence
package main

func main() {
	a := make([]int, 65)
	b := a
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[i] = b[i+1] + 1
	}
}
