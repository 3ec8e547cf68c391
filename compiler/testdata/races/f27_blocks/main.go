// want race=no
// each iteration is a block: an inner loop over bounds computed from b
package main

func main() {
	const n, p = 100, 4
	a := make([]float64, n)
	out := make([]float64, n)
	last := make([]float64, p)
	//svm:pdo loops(b)
	for b := 0; b < p; b++ {
		lo, hi := b*n/p, (b+1)*n/p
		s := 0.0
		for i := lo; i < hi; i++ {
			s += a[i]
			out[i] = s
		}
		last[b] = s
	}
	off := make([]float64, p)
	for b := 1; b < p; b++ {
		off[b] = off[b-1] + last[b-1]
	}
	//svm:pdo loops(b)
	for b := 1; b < p; b++ {
		for i := b * n / p; i < (b+1)*n/p; i++ {
			out[i] += off[b]
		}
	}
}
