// want race=yes line=9
// every processor appends to one shared slice
package main

func main() {
	var out []int
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		out = append(out, i*i)
	}
	_ = out
}
