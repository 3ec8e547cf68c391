// want race=yes line=13
// the first iteration fills a scratch element that every iteration reads
package main

func main() {
	a := make([]int, 100)
	out := make([]int, 100)
	scratch := make([]int, 1)
	//svm:pdo loops(i)
	for i := 0; i < 100; i++ {
		a[i] = i
		if i == 0 {
			scratch[0] = 42
		}
		out[i] = a[i] + scratch[0]
	}
	_ = out
}
