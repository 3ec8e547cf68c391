// want race=yes line=11
// two iterations write one element through a local index
package main

func main() {
	pairs := make([]int, 32)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		j := i / 2
		v := i * 3
		pairs[j] = v
	}
	_ = pairs
}
