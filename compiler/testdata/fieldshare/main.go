// Shared storage reached through the struct fields it was taken from,
// and elements written through their fields. Each commented line says
// how many accesses of shared storage it has, read and written.
package main

type Vec struct{ X, Y float64 }

type Box struct{ P *Vec }

type Sim struct {
	Pos  []Vec
	Arr  [4]float64
	Mass []float64
	Ptrs []Box
}

func (s *Sim) step() {
	//svm:pdo loops(i)
	for i := range s.Pos {
		s.Pos[i].X += 1         // write 1
		s.Pos[i].Y = s.Arr[i%4] // write 1 read 1
		s.Arr[i%4] = 2          // write 1
		_ = s.Mass[i]           // not shared
		s.Ptrs[i].P.X = 3       // read 1
		_ = s.at(i)
	}
}

// at is an accessor the Go compiler inlines: it stays plain, unchecked.
func (s *Sim) at(i int) Vec { return s.Pos[i] }

// energy ranges over the field by value: one check before the loop.
func (s *Sim) energy() float64 {
	e := 0.0
	for _, v := range s.Pos { // read 1
		e += v.X * v.X
	}
	return e
}

func use(v []Vec) float64 {
	return v[0].X // read 1
}

func main() {
	s := &Sim{Pos: make([]Vec, 8), Mass: make([]float64, 8), Ptrs: make([]Box, 8)}
	pos, arr, ptrs := s.Pos, s.Arr[:], s.Ptrs
	//svm:shared pos, arr, ptrs
	_, _, _ = pos, arr, ptrs
	for i := range s.Ptrs {
		s.Ptrs[i].P = &Vec{} // write 1
	}
	s.step()
	t := Sim{}
	t.Pos = make([]Vec, 1)
	_ = use(t.Pos) + use(s.Pos) + s.energy()
}
