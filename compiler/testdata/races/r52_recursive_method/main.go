// want race=yes line=32
// a recursive method with a pointer receiver that changes the one tree
// every iteration calls it on: its writes stand at the leaves, reached
// through its calls of itself
package main

type tree struct {
	l, r *tree
	hits int
}

func (t *tree) touch() {
	if t.l == nil {
		t.hits++
		return
	}
	t.l.touch()
	t.r.touch()
}

func grow(d int) *tree {
	if d == 0 {
		return &tree{}
	}
	return &tree{l: grow(d - 1), r: grow(d - 1)}
}

func main() {
	t := grow(3)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		t.touch()
	}
	_ = t
}
