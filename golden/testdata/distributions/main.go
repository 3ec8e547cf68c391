// Every distribution format, linked distribution, redistribution onto a 2-D
// arrangement and the template life cycle; on_home with an offset, a
// constant index and a general subscript expression.
package main

import "fmt"

func main() {
	owner := []int{1, 0, 1, 0, 0, 1}
	sizes := []int{2, 4}
	hits := make([]int, 8)

	//svm:processors P(2)
	//svm:processors Q(0:1, 0:1)
	//svm:template A(8)
	//svm:template B(6)
	//svm:template C(6)
	//svm:template D(4, 6)
	//svm:template E(4, 6)
	//svm:distribute (cyclic(3)) onto P :: A
	//svm:distribute (general_block(sizes)) onto P :: B
	//svm:distribute (indirect(owner)) onto P :: C
	//svm:distribute (cyclic, *) onto P :: D
	//svm:distribute E with D

	//svm:pdo loops(i) strategy(on_home(A(i)))
	for i := 0; i < 8; i++ {
		hits[i]++
	}
	//svm:pdo loops(i) strategy(on_home(B(i + 1)))
	for i := 0; i < 5; i++ {
		hits[i]++
	}
	//svm:pdo loops(i) strategy(on_home(C(5 - i)))
	for i := 0; i < 6; i++ {
		hits[i]++
	}
	cells := 0
	//svm:pdo loops(i, j) strategy(on_home(E(i, 2))) reduction(+: cells)
	for i := 0; i < 4; i++ {
		for j := 0; j < 6; j++ {
			cells++
		}
	}
	//svm:redistribute (block, block) onto Q :: D
	//svm:pdo loops(i, j) strategy(on_home(D(i, j))) reduction(+: cells)
	for i := 0; i < 4; i++ {
		for j := 0; j < 6; j++ {
			cells++
		}
	}
	//svm:undef B
	//svm:undef C
	fmt.Println("hits", hits, "cells", cells, "formats from", owner, sizes)
}
