// want race=yes line=23
// a memoising closure of main fills a map it captured, called by every
// iteration
package main

func main() {
	memo := map[int]int{}
	var fib func(n int) int
	fib = func(n int) int {
		if n < 2 {
			return n
		}
		if v, ok := memo[n]; ok {
			return v
		}
		v := fib(n-1) + fib(n-2)
		memo[n] = v
		return v
	}
	out := make([]int, 32)
	//svm:pdo loops(i)
	for i := 0; i < 32; i++ {
		out[i] = fib(i)
	}
}
