// want race=yes line=9
// w[i%4] written by many iterations (the index is not one-to-one)
package main

func main() {
	w := make([]int, 4)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		w[i%4] = i
	}
}
