// want race=no
// the twin of s01: five calls deep, but every write is to a local or the
// result; the package-level table is only read
package main

var table = []int{1, 2, 3}

func a(i int) int { return b(i) + 1 }

func b(i int) int { return c(i) * 2 }

func c(i int) int { return d(i) }

func d(i int) int { return e(i) }

func e(i int) int {
	s := make([]int, 0, 2)
	s = append(s, table[i%3], i)
	return s[0] + s[1]
}

func main() {
	out := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		out[i] = a(i)
	}
}
