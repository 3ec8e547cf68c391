// want race=no
// an index through a function of one return statement: slot(i) is 2*i+1, an element per iteration
package main

func slot(i int) int { return 2*i + 1 }

func main() {
	out := make([]int, 130)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		out[slot(i)] = i
	}
}
