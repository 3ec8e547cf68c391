// A recursive function: every call is a subprogram call. fib(30) eight
// times is the row of issue 11 that measured it (2.2 times the plain build
// at stage 0 then).
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
		s += fib(30)
	}
	fmt.Println(s)
}
