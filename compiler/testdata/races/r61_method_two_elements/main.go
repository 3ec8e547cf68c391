// want race=yes line=20
// a method writing two elements, the second picked by an argument from shared data
package main

type pair struct{ a, b []int }

func (c *pair) put(i, k int) {
	c.a[i] = i
	c.b[k]++
}

func main() {
	keys := make([]int, 64)
	for i := range keys {
		keys[i] = i % 4
	}
	c := &pair{a: make([]int, 64), b: make([]int, 4)}
	//svm:pdo loops(i)
	for i := range keys {
		c.put(i, keys[i])
	}
}
