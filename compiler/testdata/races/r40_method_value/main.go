// want race=yes line=28
// a method value of a shared struct, called by every iteration; the
// method writes through a method it calls
package main

type hist struct {
	bins  map[int]int
	total int
}

func (h *hist) put(k int) { h.bins[k%8]++ }

func (h *hist) record(x int) {
	if x >= 0 {
		h.put(x)
	}
}

type run struct{ h *hist }

func main() {
	r := run{h: &hist{bins: map[int]int{}}}
	rec := r.h.record
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		y := i * i
		_ = y
		rec(i)
	}
}
