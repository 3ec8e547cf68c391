// Go expressions in directives are type-checked in the scope where the
// directive stands (on_home subscripts at the top of the loop body), with
// nprocs() an int. Each error is reported at the column of the offending
// part of the expression.
package main

func main() {
	n, m := 8, 2.5
	sizes := []int32{4, 4}
	owner := []int{0, 1}
	//svm:processors P(nprocs())
	//svm:processors Q(0:last, nprocs() + zz) // want 23:`^processors: undefined: last$` 40:`^processors: undefined: zz$`
	//svm:template T(n, m) // want 22:`^template: m has type float64, want an integer$`
	//svm:template U(n, len("abc") * nn) // want 35:`^template: undefined: nn$`
	//svm:distribute (general_block(sizes), cyclic(m)) onto Q :: T // want 34:`^distribute: sizes has type \[\]int32, want \[\]int$` 49:`^distribute: m has type float64, want an integer$`
	//svm:distribute (indirect(owner), cyclic(n / 2)) onto Q :: U
	//svm:distribute (general_block(n)) onto P :: V // want 34:`^distribute: n has type int, want \[\]int$` 48:`^unknown template V: its template directive is at line 18, after this one; declare it before its use$`
	//svm:template V(n)
	a := make([][]float64, n)
	//svm:pdo loops(i, j) strategy(on_home(T(i, j+k))) // want 48:`^pdo: undefined: k$`
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			k := 1
			a[i][j] += float64(k)
		}
	}
	//svm:template W(:)
	//svm:create W(n * m) // want 17:`^create: invalid operation: n \* m \(mismatched types int and float64\)$`
	//svm:pdo loops(i) processors(P) strategy(cyclic(m)) // want 51:`^pdo: m has type float64, want an integer$`
	for i := 0; i < n; i++ {
		a[i][0]++
	}
	//svm:template X(a) // want 19:`^template: a has type \[\]\[\]float64, want an integer$`
	_, _ = owner, m
	_ = sizes
}
