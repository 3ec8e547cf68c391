// want race=yes line=10
// a field through a shared pointer
package main

func main() {
	t := &struct{ total float64 }{}
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		t.total += a[i]
	}
	_ = t
}
