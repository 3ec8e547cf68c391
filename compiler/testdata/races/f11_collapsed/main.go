// want race=no
// a collapsed nest updating g[i][j] in place
package main

func main() {
	var g [16][16]float64
	//svm:pdo loops(i, j)
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j++ {
			g[i][j] = g[i][j] + 1
		}
	}
	_ = g
}
