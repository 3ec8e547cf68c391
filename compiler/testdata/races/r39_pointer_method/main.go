// want race=yes line=20
// a method with a pointer receiver that changes the one struct every
// iteration calls it on
package main

type stats struct {
	n   int
	sum float64
}

func (s *stats) add(x float64) {
	s.n++
	s.sum += x
}

func main() {
	var st stats
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		st.add(float64(i))
	}
	_ = st
}
