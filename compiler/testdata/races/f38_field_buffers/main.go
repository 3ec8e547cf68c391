// want race=no
// a stencil between the slices two structs' fields hold, each iteration
// writing its own elements of the next one
package main

type field struct {
	w     int
	cells []float64
}

type sim struct{ cur, next *field }

func (s *sim) step() {
	cur, next := s.cur, s.next
	//svm:pdo loops(i)
	for i := 1; i < len(cur.cells)-1; i++ {
		next.cells[i] = (cur.cells[i-1] + cur.cells[i] + cur.cells[i+1]) / 3
	}
	s.cur, s.next = next, cur
}

func main() {
	s := &sim{cur: &field{cells: make([]float64, 64)}, next: &field{cells: make([]float64, 64)}}
	for range 4 {
		s.step()
	}
}
