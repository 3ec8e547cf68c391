// want race=no
// the body declares the loop variable again, shifted
package main

func main() {
	out := make([]int, 65)
	//svm:pdo
	for i := range 64 {
		i := i + 1
		out[i] = i
	}
	_ = out
}
