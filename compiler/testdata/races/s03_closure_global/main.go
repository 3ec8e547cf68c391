// want race=yes line=18
// a helper writes the package-level log through a closure it defines and
// calls
package main

var log []string

func note(i int) {
	add := func(s string) { log = append(log, s) }
	if i%7 == 0 {
		add("seven")
	}
}

func main() {
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		note(i)
	}
}
