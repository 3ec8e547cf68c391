// A recursive function: every call is a subprogram call.
package main

import "fmt"

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {
	s := 0
	for i := 0; i < 8; i++ {
		s += fib(27)
	}
	fmt.Println(s)
}
