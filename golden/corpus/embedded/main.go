// Ordinary Go around pdos: //go:embed files, a pdo over an array of
// arrays in a method, pdos inside a range-over-func loop, a recover in a
// pdo body, labelled break and continue of inner loops.
package main

import (
	"embed"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
)

//go:embed data/words.txt
var words string

//go:embed data
var dataFS embed.FS

type grid [8][8]int

func (g *grid) fill() {
	//svm:pdo loops(i)
	for i := range g {
		for j := range g[i] {
			g[i][j] = i * j
		}
	}
}

func pairs(n int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := range n {
			if !yield(i, i*i) {
				return
			}
		}
	}
}

func safeDiv(a []int, d []int) (out []int) {
	out = make([]int, len(a))
	//svm:pdo loops(i)
	for i := 0; i < len(a); i++ {
		func() {
			defer func() {
				if r := recover(); r != nil {
					out[i] = -1
				}
			}()
			out[i] = a[i] / d[i]
		}()
	}
	return out
}

func main() {
	lines := strings.Fields(words)
	lens := make([]int, len(lines))
	//svm:pdo loops(i)
	for i := 0; i < len(lines); i++ {
		lens[i] = len(lines[i])
	}
	fmt.Println(lines, lens)
	b, _ := dataFS.ReadFile("data/words.txt")
	fmt.Println(len(b))

	var g grid
	g.fill()
	fmt.Println(g[7][7], g[3][5])

	total := 0
	for i, sq := range pairs(10) {
		part := 0
		//svm:pdo loops(k) reduction(+: part)
		for k := 0; k < sq; k++ {
			part += k % (i + 1)
		}
		total += part
	}
	fmt.Println(total)

	fmt.Println(safeDiv([]int{10, 20, 30, 40}, []int{2, 0, 3, 0}))

	m := map[string]int{"a": 1, "b": 2, "c": 3}
	keys := slices.Sorted(maps.Keys(m))
	acc := make([]int, len(keys))
	//svm:pdo loops(i)
	for i := range keys {
		v := m[keys[i]]
	inner:
		for j := 0; j < 10; j++ {
			if j > v {
				break inner
			}
			if j%2 == 0 {
				continue
			}
			acc[i] += j
		}
	}
	fmt.Println(acc)
}
