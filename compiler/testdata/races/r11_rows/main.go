// want race=yes line=13
// g[i][j] reads the row above, written by another iteration
package main

func main() {
	g := make([][]float64, 16)
	for r := range g {
		g[r] = make([]float64, 16)
	}
	//svm:pdo loops(i)
	for i := 1; i < 16; i++ {
		for j := 0; j < 16; j++ {
			g[i][j] = g[i-1][j] + 1
		}
	}
}
