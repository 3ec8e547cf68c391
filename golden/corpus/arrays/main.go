// Arrays: a board of fixed-size arrays, as Go programmers keep small
// grids, walked by two-loop pdos whose inner loop ranges over the row the
// outer one picks (for c := range b[r], for c, v := range b[r]): an
// array's rows all have its type's length, so the iteration space is
// rectangular; the results are the serial program's.
package main

import "fmt"

const rows, cols = 6, 7

type board [rows][cols]int

func (b *board) fill() {
	//svm:pdo loops(r, c)
	for r := range b {
		for c := range b[r] {
			b[r][c] = r*10 + c%3
		}
	}
}

func (b *board) counts() [rows]int {
	var n [rows]int
	//svm:pdo loops(r, c)
	for r := range b {
		for c, v := range b[r] {
			if v%4 == 0 && c >= 0 {
				//svm:atomic
				n[r]++
			}
		}
	}
	return n
}

func smooth(in [rows][cols]float64) [rows][cols]float64 {
	var out [rows][cols]float64
	//svm:pdo loops(r, c)
	for r := range in {
		for c, v := range in[r] {
			s, k := v, 1.0
			if c > 0 {
				s, k = s+in[r][c-1], k+1
			}
			if c < cols-1 {
				s, k = s+in[r][c+1], k+1
			}
			out[r][c] = s / k
		}
	}
	return out
}

// shifted is b with each row moved one place right, walked backwards
// from a bound, len(b[r]) - 1, that is the row type's constant length.
func (b *board) shifted() (out board) {
	//svm:pdo loops(r, c)
	for r := 0; r < len(b); r++ {
		for c := len(b[r]) - 1; c > 0; c-- {
			out[r][c] = b[r][c-1]
		}
	}
	return out
}

func main() {
	var b board
	b.fill()
	b = b.shifted()
	fmt.Println(b[0], b[rows-1])
	fmt.Println(b.counts())
	var f [rows][cols]float64
	for r := range f {
		for c := range f[r] {
			f[r][c] = float64(r * c)
		}
	}
	g := smooth(f)
	fmt.Printf("%.3f %.3f\n", g[2], g[5][6])
}
