// Tasks and synchronisation: misplaced sections, jumps out of closures,
// variables that do not outlive a closure region, locks and atomic updates
// on what cannot be updated, dynamic strategies with clauses that do not
// fit, and the SVM directives that have no effect in Go.
package main

func sections(s int) int {
	//svm:psection // want 2:`^psection must be followed by a block \{ //svm:section \.\.\. \} holding its sections$`
	s++
	//svm:psection
	{
		s++ // want 3:`^this statement of the psection block at line 10 belongs to no section: put //svm:section before it$`
		//svm:section
		s++
	}
	//svm:section // want 2:`^section outside a psection: sections stand directly in the block that follows //svm:psection$`
	s++
	//svm:psection
	{
		//svm:section
		if s > 0 {
			return s // want 4:`^return inside the body of the section at line 20`
		}
	}
	return s
}

func regions(n int) int {
	//svm:replicated
	x := n * 2
	//svm:end replicated
	//svm:exclusive
	y := n + 1
	//svm:end exclusive
	return x + y // want 9:`^x is declared in the replicated region at line 29 and used after it` 13:`^y is declared in the exclusive region at line 32 and used after it`
}

func syncs(n int, m map[string]int) {
	s := 0
	t := "a"
	//svm:critical
	for i := 0; i < n; i++ {
		if i > 2 {
			return // want 4:`^return inside the body of the critical section at line 41`
		}
	}
	//svm:lock(m["a"]) // want 13:`^lock\(m\["a"\]\): m\["a"\] is not a variable or an element of one`
	s++
	//svm:atomic // want 2:`^atomic must be followed by an update x op= e, x\+\+ or x--; found an assignment with =$`
	s = 3
	//svm:atomic
	t += "b" // want 2:`^atomic: t has type string; this update needs a number$`
	//svm:atomic // want 2:`^atomic must be followed by an update x op= e, x\+\+ or x--; found a call`
	println(s, t)
}

func schedules(n int) {
	a := make([]int, n)
	//svm:processors P(2)
	//svm:template T(n)
	//svm:template U(n, n)
	//svm:pdo loops(i) processors(P) strategy(dynamic(2)) // want 32:`^a dynamic strategy schedules over the active processors; drop processors\(P\)$`
	for i := 0; i < n; i++ {
		a[i] = i
	}
	//svm:pdo loops(i) strategy(guided) template(U) // want 47:`^template\(U\) records the schedule of 1 loop, but U has 2 dimensions$`
	for i := 0; i < n; i++ {
		a[i] = i
	}
	//svm:pdo loops(i) processors(P) strategy(block) template(T) // want 60:`^pdo template\(T\) records a dynamic scheduling decision as T's distribution; with this strategy there is none: use dynamic, guided or affinity$`
	for i := 0; i < n; i++ {
		a[i] = i
	}
	//svm:coherence(invalidate) :: a // want 33:`^warning: coherence: a is not named in a shared directive of schedules: its pages get the strategy, but its accesses are not checked`
	//svm:prefetch a[0:2] // want 17:`^warning: prefetch: a is not named in a shared directive of schedules`
}

// placed puts sections on chosen processors: sections of an arrangement
// are checked where they are written; an arrangement declared with bounds
// above 0 is no placement, and says so.
func placed(n int) int {
	s := 0
	//svm:processors P(0:3, 2)
	//svm:processors Q2(2:3)
	//svm:psection
	{
		//svm:section processors(P(0:1, :))
		s++
		//svm:section processors(P(2:3)) // want 30:`^section: P has 2 dimensions: a section of it needs a subscript for each, this one has 1$`
		s++
		//svm:section processors(P(3:2, 1)) // want 30:`^section: the dimension 3:2 is empty`
		s++
		//svm:section processors(P(n, "x")) // want 33:`^section: "x" has type untyped string, want an integer$`
		s++
		//svm:section processors(Q2) // want 28:`^warning: section processors\(Q2\): Q2\(2:3\) has 2 elements on processors 0\.\.1; its bounds name the elements, they do not choose processors: to run the section on processors 2\.\.3, take a section of an arrangement of all of them, processors\(P\(2:3\)\)$`
		s++
	}
	return s
}

func main() {
	println(sections(1), regions(2), placed(3))
	syncs(3, nil)
	schedules(4)
}
