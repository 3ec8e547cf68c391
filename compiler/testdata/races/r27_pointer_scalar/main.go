// want race=yes line=11
// a shared scalar written through a pointer taken before the loop
package main

func main() {
	total := 0.0
	p := &total
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		*p += a[i]
	}
	_ = total
}
