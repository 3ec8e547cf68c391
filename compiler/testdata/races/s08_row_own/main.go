// want race=no
// twin of r29: each iteration writes its own row
package main

func main() {
	grid := make([][]int, 8)
	for k := range grid {
		grid[k] = make([]int, 8)
	}
	//svm:pdo loops(i)
	for i := 0; i < 8; i++ {
		row := grid[i]
		row[0] += i
	}
}
