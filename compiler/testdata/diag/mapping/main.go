// Templates and processor arrangements: names must resolve, declarations
// may not clash, and the shapes of distribute, create, on_home and loop-level
// strategies must agree with the ranks of what they name. Several errors in
// one function are all reported.
package main

func unknownNames(n int) {
	//svm:processors Procs(2)
	//svm:template Grid(n)
	//svm:distribute (block) onto Procz :: Gird // want 32:`^unknown processor arrangement Procz; did you mean "Procs"\?$` 41:`^unknown template Gird; did you mean "Grid"\?$`
	//svm:distribute (block) onto Q :: X // want 32:`^unknown processor arrangement Q: no processors directive declares it earlier in this function, and no variable Q of type \*rtlib\.Procs is in scope$` 37:`^unknown template X: no template directive declares it earlier in this function, and no variable X of type \*rtlib\.Template is in scope$`
	//svm:destroy Gridd // want 16:`^unknown template Gridd; did you mean "Grid"\?$`
	//svm:undef Y // want 14:`^unknown template Y: no template directive`
}

func twice(n int) {
	//svm:template T(n)
	//svm:template T(2 * n) // want 17:`^template T is declared twice \(first at line 17\); give the second another name$`
	//svm:processors P(2)
	//svm:processors P(4) // want 19:`^processors P is declared twice \(first at line 19\)`
}

func goVar(n int) {
	T := []float64{1}
	P := "procs"
	//svm:template T(n) // want 17:`^template T: T is already declared as a variable of type \[\]float64; a template variable has type \*rtlib\.Template \(rename one of them\)$`
	//svm:processors P(2) // want 19:`^processors P: P is already declared as a variable of type string; a processors variable has type \*rtlib\.Procs`
	_, _ = T, P
}

func create(n int) {
	//svm:template T(n, n)
	//svm:create T(n, n) // want 2:`^create T: T is not a creatable template \(its shape is fixed at line 32\); declare it as template T\(:, :\) to give its shape at create$`
	//svm:template C(:, :)
	//svm:create C(n) // want 2:`^create C: the template has 2 dimensions, but 1 extent given$`
	//svm:destroy C
}

func distribute(n int) {
	//svm:processors P(2, 2)
	//svm:processors Q(4)
	//svm:template T(n, n)
	//svm:distribute (block) onto P :: T // want 2:`^distribute: template T has 2 dimensions, but 1 format given: give one format per dimension \(\* for one that is not distributed\)$`
	//svm:distribute (block, block, block) :: T // want 2:`^distribute: template T has 2 dimensions, but 3 formats given`
	//svm:distribute (block, *) onto P :: T // want 2:`^distribute: 1 dimension distributed \(not \*\) onto P, which has 2 dimensions: distribute as many dimensions as the arrangement has$`
	//svm:distribute (block, block) onto Q :: T // want 2:`^distribute: 2 dimensions distributed \(not \*\) onto Q, which has 1 dimension`
	//svm:distribute (cyclic, *) onto Q :: T
}

func onHome(n int, a [][]int) {
	//svm:processors P(2)
	//svm:template T(n, n)
	//svm:distribute (block, *) onto P :: T
	//svm:pdo loops(i, j) strategy(on_home(T(i))) // want 33:`^on_home\(T\(\.\.\.\)\): T has 2 dimensions, but 1 subscript given$`
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[i][j] = 1
		}
	}
	//svm:pdo loops(i) processors(P) strategy(on_home(T(i, 0))) // want 44:`^strategy\(on_home\(\.\.\.\)\) takes the processors from the template's distribution; drop processors\(P\)$`
	for i := 0; i < n; i++ {
		a[i][0] = 1
	}
}

func loopLevel(n int, a [][]int) {
	//svm:processors P(2)
	//svm:processors P2(2, 2)
	//svm:pdo loops(i, j) processors(P) strategy(block, cyclic) // want 47:`^strategy has 2 loop formats, but P has 1 dimension: loop-level scheduling maps one loop onto each dimension of the arrangement$`
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[i][j] = 1
		}
	}
	//svm:pdo loops(i) processors(P2) strategy(block) // want 45:`^strategy has 1 loop format, but P2 has 2 dimensions`
	for i := 0; i < n; i++ {
		a[i][0] = 1
	}
	//svm:pdo loops(i, j) strategy(block, block) // want 33:`^strategy with 2 loop formats needs processors\(P\) naming an arrangement with 2 dimensions \(without processors\(\.\.\.\) a strategy distributes one loop over the active processors\)$`
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[i][j] = 1
		}
	}
	//svm:pdo loops(i, j) processors(P2) strategy(block, cyclic(2))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[i][j] = 1
		}
	}
	//svm:pdo loops(i) processors(PP) strategy(block) // want 32:`^unknown processor arrangement PP; did you mean "P"\?$`
	for i := 0; i < n; i++ {
		a[i][0] = 1
	}
}

// neverDistributed: a template only the directives reach and that none of
// them distributes cannot place a loop's iterations; one a pdo's
// template(...) records can.
func neverDistributed(n int, a []int) {
	//svm:template W(n)
	//svm:pdo loops(i) strategy(on_home(W(i))) // want 30:`^on_home\(W\(\.\.\.\)\): template W \(line \d+\) is never distributed: no distribute, redistribute or pdo template\(W\) of this function names it; distribute it before the loop \(//svm:distribute \(block\) :: W\)$`
	for i := 0; i < n; i++ {
		a[i] = i
	}
	//svm:template D(n)
	//svm:pdo loops(i) strategy(dynamic(4)) template(D)
	for i := 0; i < n; i++ {
		a[i]++
	}
	//svm:pdo loops(i) strategy(on_home(D(i)))
	for i := 0; i < n; i++ {
		a[i]++
	}
}

func main() {}
