// want race=yes line=9
// a field of a shared struct written by every processor
package main

func main() {
	var s struct{ count int }
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		s.count = i
	}
	_ = s
}
