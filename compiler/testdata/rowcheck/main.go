// Loops whose accesses of shared storage a build for ranks checks once
// per loop (TestHoistRows): "hoisted" marks each access that gets a row
// check, "kept" each that keeps its own.
package main

import "fmt"

var g = 3

func main() {
	const n = 64
	//svm:processors P(nprocs())
	a, b := grid(n), grid(n)
	v := make([]float64, n)
	idx := make([]int, n)
	//svm:shared a, b, v, idx
	//svm:pdo loops(i)
	for i := 1; i < n-1; i++ {
		for j := 1; j < n-1; j++ {
			b[i][j] = a[i-1][j] + a[i][j+1] + a[i][j-1] // hoisted 4
		}
		for j := 0; j <= n-1; j += 1 {
			v[j] = float64(j) // hoisted 1
		}
		for j := 0; j < n; j++ {
			b[i][2*j%n] = 1 // kept 1
		}
		for j := 0; j < n; j++ {
			a[i][j] = 2 // hoisted 1
			i2 := i
			_ = b[i2][j] // kept 1
		}
		for j := 0; j < n; j++ {
			b[idx[i]][j] = 3 // kept 2
		}
	L:
		for j := 0; j < n; j++ {
			a[i][j] = 4 // kept 1
			if j > 3 {
				break L
			}
		}
		for j := 0; j < n; j++ {
			for k := 0; k < 2; k++ {
				a[i][j+k] = 5 // kept 1
			}
		}
	}
	//svm:pdo loops(i, j)
	for i := 1; i < n-1; i++ {
		for j := 1; j < n-1; j++ {
			b[i][j] = a[i][j-1] + a[i-1][j] // hoisted 3
		}
	}
	k := 1
	bump := func() { k++ }
	for j := 0; j < n; j++ {
		bump()
		v[j] = a[k][j] // hoisted 1 kept 1
	}
	for j := 0; j < n; j++ {
		fmt.Print("")
		v[j] = a[g][j] // hoisted 1 kept 1
	}
	for j := 0; j < n; j++ {
		v[j] = a[g][j] // hoisted 2
	}
	for j := 0; j < n; j++ {
		j := j * 2
		v[j%n] = 1 // kept 1
	}
	fmt.Println(v[0], b[1][1])
}

func grid(n int) [][]float64 {
	g := make([][]float64, n)
	for i := range g {
		g[i] = make([]float64, n)
	}
	return g
}
