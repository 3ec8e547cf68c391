package main

import (
	"fmt"
	"maps"
	"slices"
)

type key struct{ a, b int }

func main() {
	m := map[string]int{"b": 2, "a": 1}
	for k, v := range m {
		fmt.Println(k, v)
	}
	pairs := map[key]int{{1, 2}: 3}
	for k := range pairs {
		fmt.Println(k)
	}
	fmt.Println(slices.Collect(maps.Keys(m)))
	out := make([]int, 4)
	//svm:pdo
	for i := range out {
		for _, v := range m {
			out[i] += v
		}
	}
}
