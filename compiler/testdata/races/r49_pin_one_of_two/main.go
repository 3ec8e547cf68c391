// want race=yes line=16
// a two-loop pdo whose condition pins i only: every j of row 0 writes
// the same element
package main

func main() {
	first := make([]int, 1)
	m := make([][]int, 8)
	for i := range m {
		m[i] = make([]int, 8)
	}
	//svm:pdo loops(i, j)
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			if i == 0 {
				first[0] = j
			}
			m[i][j] = i * j
		}
	}
	_ = first
}
