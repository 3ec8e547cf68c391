// want race=no
// a recursive method with a pointer receiver that only reads the tree
// every iteration calls it on (svmc's checks recursed without end on it)
package main

type tree struct {
	l, r *tree
	v    int
}

func (t *tree) sum() int {
	if t == nil {
		return 0
	}
	return t.v + t.l.sum() + t.r.sum()
}

func main() {
	t := &tree{v: 1, l: &tree{v: 2}, r: &tree{v: 3}}
	out := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		out[i] = t.sum() + i
	}
	_ = out
}
