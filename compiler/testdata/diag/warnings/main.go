// A scalar declared outside a pdo and assigned in its body is shared: every
// processor writes it. That is a warning, not an error: the package
// compiles. Reduction variables, variables declared in the body and elements
// of shared arrays are not warned about.
package main

func main() {
	n := 8
	a := make([]int, n)
	last, count, sum, flag := 0, 0, 0, false
	//svm:pdo loops(i) reduction(+: sum)
	for i := 0; i < n; i++ {
		t := i * i
		t++
		a[i] = t
		sum += t
		last = i // want 3:`^warning: last is shared and assigned in the body of the pdo at line 11: every processor writes it and the last write wins, whichever processor makes it \(if it records a best element, compare and assign in a //svm:critical section`
		count++  // want 3:`^warning: count is shared and assigned in the body of the pdo at line 11: every processor writes it \(declare reduction\(op: count\)`
		if t > 10 {
			flag, t = true, 0 // want 4:`^warning: flag is shared and assigned`
		}
	}
	println(a, last, count, sum, flag)
}
