// sort.Sort and sort.Slice over a type of the program's own: the standard
// library calls Len, Less and Swap through an interface, and a closure.
package main

import (
	"fmt"
	"sort"
)

type point struct{ x, y int }

type byDist []point

func (p byDist) Len() int           { return len(p) }
func (p byDist) Less(i, j int) bool { return p[i].dist() < p[j].dist() }
func (p byDist) Swap(i, j int)      { p[i], p[j] = p[j], p[i] }

func (q point) dist() int { return q.x*q.x + q.y*q.y }

func main() {
	pts := make(byDist, 150000)
	seed := uint32(1)
	for i := range pts {
		seed = seed*1664525 + 1013904223
		pts[i] = point{int(seed>>20) - 2048, int(seed&0xfff) - 2048}
	}
	sort.Sort(pts)
	cp := append([]point(nil), pts...)
	sort.Slice(cp, func(i, j int) bool { return cp[i].x < cp[j].x })
	fmt.Println(pts[0], pts[len(pts)-1], cp[0].x, cp[len(cp)-1].x)
}
