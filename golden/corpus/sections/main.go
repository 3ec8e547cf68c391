// Breadth-first searches as parallel sections, with a named critical section
// and a sync.Mutex in the pdo of each level; a dynamic pdo with an atomic
// update, a named critical section and a sync/atomic counter.
package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

type graph struct {
	adj [][]int
}

func ring(n int) *graph {
	g := &graph{adj: make([][]int, n)}
	for i := range n {
		g.adj[i] = []int{(i + 1) % n, (i + n - 1) % n, (i * 7) % n}
	}
	return g
}

// bfs returns the distances from src.
func (g *graph) bfs(src int) []int {
	dist := make([]int, len(g.adj))
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	frontier := []int{src}
	for len(frontier) > 0 {
		var next []int
		var mu sync.Mutex
		//svm:pdo loops(k)
		for k := range frontier {
			u := frontier[k]
			for _, v := range g.adj[u] {
				//svm:critical visit
				{
					if dist[v] < 0 {
						dist[v] = dist[u] + 1
						mu.Lock()
						next = append(next, v)
						mu.Unlock()
					}
				}
			}
		}
		slices.Sort(next)
		frontier = next
	}
	return dist
}

type stats struct {
	count atomic.Int64
	sum   float64
}

func main() {
	g := ring(200)
	var d0, d1 []int
	var words []string
	//svm:psection
	{
		//svm:section
		{
			d0 = g.bfs(0)
		}
		//svm:section
		{
			d1 = g.bfs(100)
		}
		//svm:section
		{
			w := strings.Fields("delta alpha charlie bravo")
			sort.Strings(w)
			words = w
		}
	}
	far0, far1 := slices.Max(d0), slices.Max(d1)
	fmt.Println(far0, far1, words)

	var st stats
	hits := 0
	//svm:pdo loops(i) strategy(dynamic(8))
	for i := 0; i < 1000; i++ {
		x := math.Sqrt(float64(i))
		st.count.Add(1)
		if x == math.Floor(x) {
			//svm:atomic
			hits++
		}
		//svm:critical sum
		st.sum += x
	}
	fmt.Printf("%d %d %.6f\n", st.count.Load(), hits, st.sum)
}
