// want race=yes line=13
// every iteration takes the first row of the shared grid and writes its first cell
package main

func main() {
	grid := make([][]int, 8)
	for k := range grid {
		grid[k] = make([]int, 8)
	}
	//svm:pdo loops(i)
	for i := 0; i < 8; i++ {
		row := grid[0]
		row[0] += i
	}
}
