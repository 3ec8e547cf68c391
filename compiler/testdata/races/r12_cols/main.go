// want race=yes line=10
// a collapsed nest where g[i][j] reads g[i][j-1]
package main

func main() {
	var g [16][16]float64
	//svm:pdo loops(i, j)
	for i := 0; i < 16; i++ {
		for j := 1; j < 16; j++ {
			g[i][j] = g[i][j-1] + 1
		}
	}
	_ = g
}
