// Pairing of //svm:end with the end-form constructs it closes: an end must
// close a construct opened earlier in its own statement list, and constructs
// nest. A trace_region that no end closes applies to the one statement after
// it, also inside a region closed by an end (nestedFine has no errors).
package main

func noOpener() {
	x := 0
	//svm:end trace_region // want 2:`^end trace_region has no trace_region to close earlier in the same block: a construct opens and ends in one statement list$`
	x++
	//svm:trace_region a
	x++
	//svm:end trace_region b // want 2:`^end trace_region b has no trace_region b to close earlier in the same block`
	_ = x
}

func otherBlock(n int) {
	x := 0
	//svm:trace_region a
	for i := 0; i < n; i++ {
		x += i
		//svm:end trace_region a // want 3:`^end trace_region a has no trace_region a to close earlier in the same block`
	}
	_ = x
}

func crossed() {
	x := 0
	//svm:trace_region a
	x++
	//svm:trace_region b
	x++
	//svm:end trace_region a
	x++
	//svm:end trace_region b // want 2:`^end trace_region b closes the trace_region at line 31, which began inside the trace_region at line 29 and so must end before its end at line 33: constructs nest$`
	_ = x
}

func emptyInner() {
	x := 0
	//svm:trace_region a
	x++
	//svm:trace_region b // want 2:`^trace_region b has no statement of its own before line 44, where the enclosing trace_region ends: close it with its own end before that line, or put a statement between them$`
	//svm:end trace_region a
	_ = x
}

func nestedFine() {
	x := 0
	//svm:trace_region a
	x++
	//svm:trace_region b
	x++
	//svm:end trace_region a
	//svm:trace_region c
	x++
	//svm:trace_region d
	x++
	//svm:end trace_region d
	//svm:end trace_region
	_ = x
}

func atEnd() {
	x := 0
	_ = x
	//svm:trace_region a // want 2:`^trace_region must be followed by the statement it applies to, or closed later in the same block by //svm:end trace_region$`
}

func main() {}
