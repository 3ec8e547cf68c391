// want race=yes line=13
// a histogram: h[a[i]]++ collides when values repeat
package main

func main() {
	a := make([]int, 64)
	h := make([]int, 8)
	for i := range a {
		a[i] = i % 8
	}
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		h[a[i]]++
	}
}
