// want race=no
// a helper called in the body only reads a package-level value
package main

var factor = 3

func scaled(i int) int { return i * factor }

func main() {
	out := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		out[i] = scaled(i)
	}
}
