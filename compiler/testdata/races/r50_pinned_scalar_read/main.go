// want race=yes line=13
// the first iteration sets a threshold the others read while it may not
// be set yet
package main

func main() {
	v := make([]int, 100)
	over := make([]bool, 100)
	limit := 0
	//svm:pdo loops(i)
	for i := 0; i < 100; i++ {
		if i == 0 {
			limit = 50
		}
		over[i] = v[i] > limit
	}
	_ = over
}
