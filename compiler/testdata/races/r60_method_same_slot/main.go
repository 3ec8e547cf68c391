// want race=yes line=16
// a method that writes the slot its receiver's field names
package main

type recorder struct {
	last []float64
	slot int
}

func (r *recorder) note(v float64) { r.last[r.slot] = v }

func main() {
	r := &recorder{last: make([]float64, 2)}
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		r.note(float64(i))
	}
}
