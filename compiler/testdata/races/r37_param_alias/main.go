// want race=yes line=9
// the parameter a is made b once; b is never assigned again
package main

func shift(a, b []int) {
	a = b
	//svm:pdo loops(i)
	for i := 0; i < 63; i++ {
		a[i] = b[i+1]
	}
}

func main() {
	shift(nil, make([]int, 64))
}
