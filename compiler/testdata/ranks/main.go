package main

import (
	"fmt"
	"sync"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	const n = 100
	shared := make([]float64, n)
	private := make([]float64, n)
	grid := make([][]float64, n)
	for i := range grid {
		grid[i] = make([]float64, n)
	}
	count, sum, ignored := 0, 0.0, 0
	var found []int
	last := ""
	big := false
	var mu sync.Mutex
	//svm:shared shared
	//svm:pdo loops(i) reduction(+: sum)
	for i := 0; i < n; i++ {
		local := make([]int, 2)
		local[0] = i
		shared[i] = float64(i)
		private[i] = float64(i) // want private: shared advice
		row := grid[i]
		row[0] = 1 // want grid: shared advice
		sum += float64(i)
		//svm:critical
		count++                  // want count: reduction advice
		found = append(found, i) // want found: collect advice
		last = fmt.Sprint(i)     // want last: assign advice
		if i > 100 {
			big = true // want big: logical advice
		}
		//svm:end critical
		mu.Lock() // want mu: mutex advice
		//svm:ignore race: counted on rank 0 only
		ignored++
		mu.Unlock()
		_ = local
	}
	fmt.Println(count, sum, ignored, shared[1], private[1], grid[1][0], len(found), last, big)

	results := make([]int, 4)
	total, direct, owned := 0, 0, make([]int, 4)
	//svm:shared owned
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		mine := me * 2
		results[me] = mine // want results: shared advice
		owned[me] = mine
		if me == 0 {
			total = mine
		}
		if rtlib.ProcessorID() == 0 {
			direct = mine
		}
		if me != 0 {
			total++ // want total: gather advice
		}
	}
	fmt.Println(results, total, direct, owned)
	scale(shared, 2)
	scale(shared[10:], 3)
	relay(shared)
	fill(shared)
	fill(private)
	mark(owned)
	into(&holder{v: shared})
	into(&holder{v: private})
	w := &worker{out: shared, f: 2}
	w.run()
	var b worker
	b.out = shared[50:]
	b.run()
}

// worker's field out is given shared storage wherever it is set: its
// method's writes through it travel between ranks, no warning.
type worker struct {
	out []float64
	f   float64
}

func (w *worker) run() {
	//svm:pdo loops(i)
	for i := range w.out {
		w.out[i] *= w.f
	}
}

type holder struct{ v []float64 }

// into writes the elements of a slice a struct holds: the slice is what
// can be declared shared.
func into(h *holder) {
	//svm:pdo loops(i)
	for i := range h.v {
		h.v[i] = 2 // want h: field advice
	}
}

// mark's region writes storage its one call gives shared.
func mark(v []int) {
	//svm:replicated
	{
		v[rtlib.ProcessorID()] = 1
	}
}

// scale is given shared storage by every call: its writes travel.
func scale(v []float64, f float64) {
	//svm:pdo loops(i)
	for i := range v {
		v[i] *= f
	}
}

// relay passes on the shared storage it is given: scale's v is shared
// through it too.
func relay(w []float64) { scale(w, 1) }

// fill is given shared storage by one call, and private by another.
func fill(v []float64) {
	//svm:pdo loops(i)
	for i := range v {
		v[i] = 1 // want v: shared advice
	}
}

// grid's cells are shared storage wherever a grid is made: a generic
// type, whose method sees the field of its own instantiation, and a
// shared slice of a type parameter (its element size unknown).
type grid[T any] struct{ cells []T }

func newGrid[T any](n int) *grid[T] {
	cells := make([]T, n)
	//svm:shared cells
	return &grid[T]{cells: cells}
}

func (g *grid[T]) set(v T) {
	//svm:pdo loops(i)
	for i := range g.cells {
		g.cells[i] = v
	}
}

// tally counts into a map: no //svm:shared for it, a shared slice instead.
func tally(words []string) map[string]int {
	counts := map[string]int{}
	//svm:pdo loops(i)
	for i := range words {
		counts[words[i]]++ // want counts: map advice
	}
	return counts
}

// scene holds an array in a struct: its storage is shared through a slice.
type scene struct{ areas [8]float64 }

func (s *scene) compute() {
	//svm:pdo loops(i)
	for i := range s.areas {
		s.areas[i] = float64(i) // want s: array advice
	}
}

// body shares its slice field through a variable taken from it: writes
// through the field, in a method, are that variable's (no warning).
type body struct{ pos []float64 }

func (b *body) move() {
	//svm:pdo loops(i)
	for i := range b.pos {
		b.pos[i] += 1
	}
}

func newBody() *body {
	b := &body{pos: make([]float64, 16)}
	pos := b.pos
	//svm:shared pos
	_ = pos
	b.move()
	return b
}

// table is written by a pdo without being shared: the directive that
// would share it stands in a function's body, not beside it.
var table = make([]int, 8)

func fillTable() {
	//svm:pdo loops(i)
	for i := range table {
		table[i] = i // want table: global advice
	}
}

// field is declared shared by another function than the one whose pdo
// writes it (x511): a package-level variable shared in any function's body
// is shared storage from there on, and travels.
var field [8][8]float64

func shareField() {
	//svm:shared field
	relax()
}

func relax() {
	//svm:pdo loops(i)
	for i := 1; i < 7; i++ {
		field[i][1] = float64(i)
	}
}
