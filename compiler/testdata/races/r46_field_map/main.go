// want race=yes line=15
// a map a struct's field holds, written by every iteration
package main

type stats struct {
	hist map[int]int
}

func main() {
	st := stats{hist: map[int]int{}}
	vals := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		vals[i] = i * i
		st.hist[vals[i]%7]++
	}
}
