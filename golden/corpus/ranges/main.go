// Ranges: pdos over the range forms Go has besides slices and ints — a
// pointer to an array, an integer of a named type, an array by value with
// its elements, a pointer to an array with index and element.
package main

import "fmt"

type ID int

type grid [6]float64

func main() {

	var g grid
	//svm:pdo
	for i := range &g {
		g[i] = float64(i) * 1.5
	}
	fmt.Println(g)

	var ids [5]ID
	//svm:pdo
	for i := range ID(5) {
		ids[i] = i * 2
	}
	fmt.Println(ids)

	arr := [4]int{1, 2, 3, 4}
	t := 0
	//svm:pdo reduction(+: t)
	for _, v := range arr {
		t += v
	}
	fmt.Println(t)

	p := &arr
	u := 0
	//svm:pdo reduction(+: u)
	for i, v := range p {
		u += i * v
	}
	fmt.Println(u)
}
