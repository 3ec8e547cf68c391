// Numbering: subprograms files-sorted then in source order (init skipped),
// directives per subprogram in textual order, regions with parents.
package main

type T struct{ n int }

func (t *T) M() {
	//svm:barrier
	t.n++
}

func init() {
	println("init is not a subprogram")
}

func main() {
	n := 8
	a := make([]float64, n)
	var total [1]float64
	//svm:shared a, total
	//svm:trace_region outer
	for k := 0; k < 2; k++ {
		//svm:pdo label(first) loops(i)
		for i := 0; i < n; i++ {
			//svm:trace_region body
			a[i] += float64(k)
		}
	}
	//svm:trace_region single
	total[0] = a[0]
	//svm:end trace_region outer
	//svm:barrier
	t := &T{}
	t.M()
	helper(a)
	println(total[0])
}
