// want race=no
// a pointer method called on each iteration's own element
package main

type cell struct{ v, hits int }

func (c *cell) bump(by int) {
	c.v += by
	c.hits++
}

func main() {
	cells := make([]cell, 64)
	//svm:pdo loops(i)
	for i := 0; i < len(cells); i++ {
		cells[i].bump(i)
	}
}
