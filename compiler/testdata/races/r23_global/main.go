// want race=yes line=12
// a helper called in the body writes a package-level counter
package main

var calls int

func count(i int) { calls += i }

func main() {
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		count(i)
	}
}
