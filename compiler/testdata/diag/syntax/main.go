// Directive syntax errors, found by the directives parser, and a directive
// that shares its line with code. All are reported at once, each at the
// column of the offending token.
package main

func main() {
	n, s := 4, 0
	//svm:barier // want 8:`^unknown directive "barier"; did you mean "barrier"\?$`
	//svm:pdo loops(i) stratgy(block) // want 21:`^pdo: unknown clause "stratgy"; did you mean "strategy"\?$`
	for i := 0; i < n; i++ {
		s += i
	}
	//svm:barrier now // want 16:`^barrier: expected end of directive, found "now"$`
	//svm:pdo loops(i) strategy(block, general_block(sizes)) // want 37:`^pdo: unknown format "general_block"`
	for i := 0; i < n; i++ {
		s += i
	}
	//svm:pdo strategy(block)
	for i := 0; i < n; i++ {
		s += i
	}
	//svm:template T(n, :) // want 22:`^template: cannot mix ':' and extents: a creatable template has ':' in every dimension$`
	//svm:processors P(n +) // want 24:`^processors: expected operand, found end of expression$`
	//svm:end pdo // want 12:`^end: pdo cannot be closed by end \(only critical, replicated, exclusive, trace_region can\); a pdo is the loop that follows it and ends with that loop: delete this line$`
	//svm:pdo loops(i) strategy(block, block) // want 30:`^pdo: strategy has 2 loop formats for a nest of 1: one format per loop at most, outermost first$`
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s += j
		}
	}
	//svm:distribute (blok) onto P :: T // want 20:`^distribute: unknown format "blok"; did you mean "block"\?$`
	//svm:PDO Loops(i) Strategy(Cyclic(2)) reduction(+: s) reduction(max s) // want 71:`^pdo: expected ":" after reduction operator, found "s"$`
	for i := 0; i < n; i++ {
		s += i
	}
	s++ //svm:barrier // want 6:`^barrier directive must stand on a line of its own`
	_ = s
}
