// want race=yes line=11
// held out: counts[key(i)]++ where key maps iterations to few keys
package main

func key(i int) int { return i % 4 }

func main() {
	counts := make([]int, 4)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		counts[key(i)]++
	}
}
