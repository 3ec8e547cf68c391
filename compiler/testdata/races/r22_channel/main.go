// want race=yes line=9
// results sent on a shared channel from every processor
package main

func main() {
	ch := make(chan int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		ch <- i
	}
	close(ch)
}
