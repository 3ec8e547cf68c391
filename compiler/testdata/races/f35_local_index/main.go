// want race=no
// the iteration's own element through a local copy of the loop variable
package main

func main() {
	out := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		k := i
		v := k * k
		out[k] = v
	}
	_ = out
}
