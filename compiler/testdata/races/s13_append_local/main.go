// want race=no
// twin of r34: each iteration appends to its own slice and stores it in its own element
package main

func main() {
	rows := make([][]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		var row []int
		for j := 0; j <= i; j++ {
			row = append(row, j)
		}
		rows[i] = row
	}
}
