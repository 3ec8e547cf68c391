// want race=no
// a matrix's row setter: the row is the iteration's, the columns the method's own loop
package main

type matrix struct {
	cols int
	data []float64
}

func (m *matrix) setRow(r int, vals []float64) {
	for j, v := range vals {
		m.data[r*m.cols+j] = v
	}
}

func main() {
	m := &matrix{cols: 4, data: make([]float64, 64)}
	//svm:pdo loops(i)
	for i := 0; i < 16; i++ {
		row := []float64{1, 2, 3, float64(i)}
		m.setRow(i, row)
	}
}
