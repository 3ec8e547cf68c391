// want race=no
// a counter updated atomically
package main

func main() {
	count := 0
	a := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		if a[i] == 0 {
			//svm:atomic
			count++
		}
	}
	_ = count
}
