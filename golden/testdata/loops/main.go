// Every loop form a pdo accepts, every reduction operator, default
// scheduling, unused loop variables, continue in a body and to a labelled
// pdo loop from a loop of its body, and nprocs() in a directive expression.
package main

import "fmt"

func main() {
	xs := []int{3, 9, 4, 7, 1, 8}
	down := 0
	//svm:pdo loops(i) reduction(+: down)
	for i := 9; i >= 0; i-- {
		down += i
	}
	steps := 0
	//svm:pdo loops(i) reduction(+: steps)
	for i := 0; i <= 9; i += 3 {
		steps += i
	}
	back := 0
	//svm:pdo loops(i) reduction(+: back)
	for i := 10; i > 0; i -= 2 {
		back += i
	}
	prod, lo, hi := 1, 1<<30, -1
	and, or, xor := -1, 0, 0
	//svm:pdo loops(i) reduction(*: prod) reduction(min: lo) reduction(max: hi) reduction(&: and) reduction(|: or) reduction(^: xor)
	for i, v := range xs {
		if i == 2 {
			continue
		}
		prod *= v
		lo = min(lo, v)
		hi = max(hi, v)
		and &= v | 1
		or |= v
		xor ^= v
	}
	count := 0
	//svm:processors R(nprocs())
	//svm:pdo loops(i) processors(R) strategy(cyclic(2))
	for i := 0; i < 6; i++ {
		for j := 0; j < 2; j++ {
			_ = j // i stays unused in the pdo body
		}
	}
	//svm:pdo loops(k) reduction(+: count)
	for k := range 7 {
		count += k
	}
	primes := 0
	//svm:pdo loops(i) reduction(+: primes)
next:
	for i := 2; i < 50; i++ {
		for d := 2; d*d <= i; d++ {
			if i%d == 0 {
				continue next
			}
		}
		primes++
	}
	pairs := 0
	//svm:pdo loops(i, j) reduction(+: pairs)
	for i := 1; i < 8; i++ {
	cols:
		for j := 1; j < 8; j++ {
			for _, x := range xs {
				if x == i*j {
					continue cols
				}
			}
			pairs += i + j
		}
	}
	fmt.Println(down, steps, back, prod, lo, hi, and, or, xor, count, primes, pairs)
}
