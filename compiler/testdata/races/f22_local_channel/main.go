// want race=no
// a channel made per iteration
package main

func main() {
	out := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		ch := make(chan int, 1)
		ch <- i
		out[i] = <-ch
	}
}
