// want race=no
// twin of r28: b is a copy (make + copy), not a
package main

func main() {
	a := make([]int, 65)
	b := make([]int, len(a))
	copy(b, a)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		a[i] = b[i+1] + 1
	}
}
