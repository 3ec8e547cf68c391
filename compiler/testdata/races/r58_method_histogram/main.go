// want race=yes line=26
// a histogram's method: the bin comes from the value added
package main

type histogram struct {
	bins  []int
	width float64
}

func (h *histogram) add(x float64) {
	b := int(x / h.width)
	if b >= len(h.bins) {
		b = len(h.bins) - 1
	}
	h.bins[b]++
}

func main() {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(i%10) + 0.5
	}
	h := &histogram{bins: make([]int, 10), width: 1}
	//svm:pdo loops(i)
	for i := range xs {
		h.add(xs[i])
	}
}
