// want race=yes line=9
// a shared map written in the body
package main

func main() {
	m := map[int]int{}
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		m[i%3] = i
	}
	_ = m
}
