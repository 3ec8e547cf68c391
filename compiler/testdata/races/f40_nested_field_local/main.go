// want race=no
// a field of a field of a struct each iteration declares for itself
package main

type summary struct {
	stats struct{ max float64 }
}

func main() {
	cells := make([]float64, 64)
	out := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 1; i < len(cells)-1; i++ {
		var s summary
		for _, v := range cells[i-1 : i+2] {
			if v > s.stats.max {
				s.stats.max = v
			}
		}
		out[i] = s.stats.max
	}
	_ = out
}
