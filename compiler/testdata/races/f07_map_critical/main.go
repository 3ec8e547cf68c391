// want race=no
// a shared map written in a critical section
package main

func main() {
	m := map[int]int{}
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		//svm:critical m
		m[i%3] += i
	}
	_ = m
}
