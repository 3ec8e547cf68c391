// User trace regions in both forms, nested in a pdo body and around one, a
// return out of a region, explicit barriers and shared variables.
package main

import "fmt"

var total int

func find(xs []int, x int) int {
	//svm:trace_region search
	for i, v := range xs {
		if v == x {
			return i // leaves the region; the runtime closes it
		}
	}
	return -1
}

func main() {
	xs := []int{5, 3, 8, 1}
	squares := make([]int, 16)
	//svm:shared xs, squares

	//svm:trace_region setup
	n := len(squares)
	limit := n / 2
	//svm:end trace_region setup

	//svm:trace_region compute
	//svm:pdo label(square) loops(i)
	for i := 0; i < n; i++ {
		//svm:trace_region body
		squares[i] = i * i
	}
	//svm:barrier
	fmt.Println("index of 8:", find(xs, 8), "index of 7:", find(xs, 7))
	//svm:barrier
	for _, s := range squares[:limit] {
		total += s
	}
	fmt.Println("sum of the first squares:", total)
}
