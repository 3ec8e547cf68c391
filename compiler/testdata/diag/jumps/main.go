// Statements that leave a parallel body or a user region other than by its
// end, and directives that cannot run inside a pdo body. Jumps that stay
// inside the body are fine: continue at the top level of a pdo body (it ends
// the iteration), break out of an inner loop or switch, goto to a label of
// the body, and return from a function literal.
package main

func pdoReturn(n int) int {
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		if i == 3 {
			return i // want 4:`^return inside the body of the pdo at line 9: a parallel body cannot leave its construct; record what it would return .* and return after the loop$`
		}
	}
	return 0
}

func pdoBreak(n int) {
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		if i == 3 {
			break // want 4:`^break inside the body of the pdo at line 19 leaves it: a pdo runs all its iterations; continue ends one; a search keeps what it finds in a reduction variable, reduction\(min: k\) for the first index, and uses it after the loop$`
		}
	}
}

func pdoGoto(n int) {
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		if i == 3 {
			goto out // want 4:`^goto out inside the body of the pdo at line 28 jumps out of it: a pdo runs all its iterations; continue ends one$`
		}
	}
out:
}

func pdoLabeledContinue(n int) {
outer:
	for k := 0; k < 2; k++ {
		//svm:pdo loops(i)
		for i := 0; i < n; i++ {
			if i == k {
				continue outer // want 5:`^continue outer inside the body of the pdo at line 40 jumps out of it`
			}
		}
	}
}

func pdoDefer(n int) {
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		defer println(i) // want 3:`^defer inside the body of the pdo at line 50: it would run when the processor's part ends, not when the function returns; put the code that needs it in a function literal, func\(\) { ...; defer ... }\(\), to run it at that function's end$`
	}
}

func pdoAllowed(n int, a []int) {
	//svm:pdo loops(i, j)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j == 0 {
				continue
			}
			for k := range 3 {
				if k == j {
					break
				}
				continue
			}
			switch {
			case i == 1:
				break
			}
			if i == 2 {
				goto next
			}
			a[i] = j
		next:
			f := func() int { return 1 }
			a[j] = f()
		}
	}
}

func regionJumps(n int) int {
	for i := 0; i < n; i++ {
		//svm:trace_region r1
		{
			if i == 1 {
				break // want 5:`^break inside the body of the trace_region at line 86 leaves it: a region is left only through its end$`
			}
			if i == 2 {
				continue // want 5:`^continue inside the body of the trace_region at line 86 leaves it: a region is left only through its end$`
			}
			if i == 3 {
				return i // return is allowed: the region ends with the function
			}
			for range 2 {
				break
			}
		}
		//svm:trace_region r2
		if i == 4 {
			break // want 4:`^break inside the body of the trace_region at line 101 leaves it`
		}
		//svm:trace_region r3
		if i == 5 {
			continue // want 4:`^continue inside the body of the trace_region at line 105 leaves it`
		}
		//svm:end trace_region r3
	}
	return 0
}

func nested(n int, a [][]int) {
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		//svm:pdo loops(j) // want 3:`^pdo inside the body of the pdo at line 115: a parallel loop nest is one pdo with loops\(\.\.\.\)$`
		for j := 0; j < n; j++ {
			a[i][j] = 1
		}
		//svm:barrier // want 3:`^barrier inside the body of the pdo at line 115: it would run once per iteration on one processor; move it before or after the pdo$`
		//svm:trace_region fine
		a[i][0] = 2
	}
}

func main() {}
