// Table 1 of seed 002: the cases whose order and writers the runtime once
// got wrong, each in the seed's order — a semi-dynamic pdo (template-dist
// before the barrier at the end of PDO, each processor its own part), a
// pdo reached in replicated mode (pdo-info before any member's iterations),
// a pdo on processors(Q) (aps-info lists Q's processors), a creatable
// template (template-info at TEMPLATE and at CREATE) and a distribution
// (template-dist for every processor).
package main

import "fmt"

func main() {
	const n = 16
	a := make([]int, n)
	//svm:template R(n)
	//svm:pdo label(semi) loops(i) strategy(dynamic(4)) template(R)
	for i := 0; i < n; i++ {
		a[i] = i
	}
	//svm:processors Q(2)
	//svm:pdo label(onq) loops(i) processors(Q) strategy(block)
	for i := 0; i < n; i++ {
		a[i] += 1
	}
	//svm:template T2(:)
	//svm:create T2(n)
	//svm:distribute (block) :: T2
	//svm:pdo label(home) loops(i) strategy(on_home(T2(i)))
	for i := 0; i < n; i++ {
		a[i] *= 2
	}
	sum := 0
	//svm:replicated
	{
		//svm:pdo label(repl) loops(i) reduction(+: sum)
		for i := 0; i < n; i++ {
			sum += a[i]
		}
	}
	fmt.Println(sum)
}
