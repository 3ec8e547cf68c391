package main

func main() {
	a := make([]float64, 64)
	hits := make([]int, 4)
	//svm:pdo loops(i)
	for i := 1; i < 64; i++ {
		//svm:ignore race: the counts are approximate, a lost update is fine
		hits[i%4]++
		a[i] = a[i-1] + 1
	}
	//svm:ignore race: nothing here
	println(len(a))
}
