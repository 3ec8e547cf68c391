// want race=no
// held out: a map made per iteration
package main

func main() {
	a := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		local := map[int]int{}
		local[i] = i
		a[i] = local[i]
	}
}
