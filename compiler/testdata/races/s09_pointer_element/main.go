// want race=no
// twin of r30: the pointer is to the iteration's own element
package main

func fill(a []int) {
	//svm:pdo loops(i)
	for i := 0; i < len(a); i++ {
		q := &a[i]
		*q = i * i
	}
}

func main() {
	fill(make([]int, 64))
}
