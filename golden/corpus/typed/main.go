package main

import "fmt"

type Number interface {
	~int | ~int64 | ~float64
}

func sum[T Number](xs []T) T {
	var s T
	//svm:pdo loops(i) reduction(+: s)
	for i := range xs {
		s += xs[i]
	}
	return s
}

func yes(int) bool { return true }

func pick(int, string, ...float64) string { return "x" }

func main() {
	var n32 int32 = 7
	total := int64(0)
	//svm:pdo loops(i) reduction(+: total)
	for i := int64(0); i < 10; i++ {
		total += i
	}
	c := 0
	//svm:pdo loops(k) reduction(+: c)
	for k := range n32 {
		c += int(k)
	}
	var u8 uint8 = 5
	d := 0
	//svm:pdo loops(j) reduction(+: d)
	for j := range u8 {
		d += int(j)
	}
	f := yes
	fmt.Println(total, c, d, f(1), yes(2), pick(1, "x"), sum([]int{1, 2, 3}), sum([]float64{0.5, 1.5}))
}
