// The loop nest of a pdo: it must be a perfect nest of canonical for loops
// over the variables loops(...) names, with a rectangular iteration space,
// over an index space (not a map, string or channel), and the body may not
// assign the loop variables. One function per case.
package main

func notFor(n int) {
	s := 0
	//svm:pdo loops(i)
	s = n // want 2:`^pdo \(line 9\) must be followed by a for loop over i, found an assignment$`
	_ = s
}

func atEnd(n int) {
	for range n {
		//svm:pdo loops(i) // want 3:`^pdo must be followed by a for statement$`
	}
}

func wrongVar(n int) {
	//svm:pdo loops(k)
	for i := 0; i < n; i++ { // want 2:`^pdo loops\(\.\.\.\) names k here, but this loop's variable is i$`
	}
}

func notPerfect(n int, a [][]int) {
	//svm:pdo loops(i, j) // want 2:`^pdo loops\(i,j\): loop j is missing: the body of loop i must hold only the for statement of j \(a perfect nest\)$`
	for i := 0; i < n; i++ {
		a[i][0] = 1
		for j := 0; j < n; j++ {
			a[i][j] = 2
		}
	}
}

func notPerfect2(n int, a [][]int) {
	//svm:pdo loops(i, j)
	for i := 0; i < n; i++ {
		a[i][0] = 1 // want 3:`^pdo loops\(i,j\) \(line 37\): the body of loop i must be only the for loop over j \(a perfect nest\), found an assignment$`
	}
}

func noInit(n int) {
	i := 0
	//svm:pdo loops(i)
	for i = 0; i < n; i++ { // want 2:`^pdo loop i is not in canonical form \(its init statement must declare the loop variable: i := lo\): want for i := lo; i < hi; i\+\+ \(also <=, >, >=, i \+= c, i -= c\) or for i := range n \(n an integer, a slice or an array\)$`
	}
	//svm:pdo loops(i)
	for ; i < n; i++ { // want `\(its init statement must declare the loop variable: i := lo\)`
	}
}

func badCond(n int) {
	//svm:pdo loops(i)
	for i := 0; i != n; i++ { // want `^pdo loop i is not in canonical form \(its condition must use <, <=, > or >=\)`
	}
	//svm:pdo loops(i)
	for i := 0; n > i; i++ { // want `^pdo loop i is not in canonical form \(its condition must compare the loop variable with the bound\)`
	}
	//svm:pdo loops(i)
	for i := 0; ; i++ { // want `\(its condition must compare the loop variable with the bound\)`
		break
	}
}

func badPost(n int) {
	//svm:pdo loops(i)
	for i := 0; i < n; i *= 2 { // want `^pdo loop i is not in canonical form \(its post statement must be i\+\+, i--, i \+= c or i -= c\)`
	}
	//svm:pdo loops(i)
	for i := 0; i < n; { // want `^pdo loop i is not in canonical form \(it needs a post statement\)`
		i++
	}
	//svm:pdo loops(i)
	for i, j := 0, 0; i < n; i++ { // want `\(its init statement must declare the loop variable alone\)`
		_ = j
	}
}

func direction(n int) {
	//svm:pdo loops(i)
	for i := 0; i < n; i-- { // want 14:`^pdo loop i never ends or never runs: its step goes down but its condition is i < n$`
	}
	//svm:pdo loops(i)
	for i := n; i >= 0; i += 2 { // want 14:`^pdo loop i never ends or never runs: its step goes up but its condition is i >= 0$`
	}
	//svm:pdo loops(i)
	for i := 0; i < n; i += 0 { // want 26:`^pdo loop i has step 0: it would never end$`
	}
}

func rectangular(n int, a [][]int) {
	//svm:pdo loops(i, j)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ { // want 3:`^pdo loops\(i,j\): the bounds of loop j use i; the iteration space of a pdo must be rectangular \(make the inner loop a serial loop of the body\)$`
			a[i][j] = 1
		}
	}
	//svm:pdo loops(i, j)
	for i := range a {
		for j := range a[i] { // want 3:`the bounds of loop j use i; .* \(make the inner loop a serial loop of the body\): a slice.s rows may differ in length`
			a[i][j] = 1
		}
	}
}

func ranges(m map[string]int, s string, ch chan int) {
	//svm:pdo loops(k)
	for k := range m { // want 17:`^pdo loop k ranges over map\[string\]int; a pdo ranges over an integer, a slice or an array \(a map's order is not an index space: range over its keys as a slice, keys := slices.Sorted\(maps.Keys\(m\)\)\)$`
		_ = k
	}
	//svm:pdo loops(i)
	for i := range s { // want 17:`^pdo loop i ranges over string; a pdo ranges over an integer, a slice or an array \(a string's runes are not an index space: range over \[\]rune\(s\) or \[\]byte\(s\)\)$`
		_ = i
	}
	//svm:pdo loops(v)
	for v := range ch { // want 17:`^pdo loop v ranges over chan int; a pdo ranges over an integer, a slice or an array \(a channel's values arrive one by one`
		_ = v
	}
	//svm:pdo loops(i)
	for _, x := range []int{1} { // want 2:`^pdo loop i must declare its variable: for i := range \.\.\. \(or leave out loops\(\.\.\.\): a pdo without it is the loop that follows, with or without an index\)$`
		_ = x
	}
}

func assigned(n int) {
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		if i > 2 {
			i = n // want 4:`^pdo loop variable i is assigned in the loop body; the runtime sets it \(assign a copy instead\)$`
		}
		i++ // want 3:`^pdo loop variable i is assigned in the loop body`
	}
}

// The pdo's (innermost) loop may carry a label for a continue from a loop
// of its body; break to it leaves the pdo, and an outer loop of a nest may
// carry none.
func labeled(n int, a []int) {
	//svm:pdo loops(i)
L:
	for i := 0; i < n; i++ {
		for d := 2; d < i; d++ {
			if i%d == 0 {
				continue L
			}
		}
		a[i] = i
	}
	//svm:pdo loops(i)
B:
	for i := 0; i < n; i++ {
		for {
			break B // want 4:`^break B inside the body of the pdo at line 150 leaves it: a pdo runs all its iterations; continue B ends one; a search keeps what it finds in a reduction variable`
		}
	}
	//svm:pdo loops(i, j)
O: // want 1:`^pdo loops\(i,j\) \(line 157\): the loop over i may not carry a label: continue O would end several iterations of the nest at once; make i a serial loop of the body, or label the innermost loop$`
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			continue O
		}
	}
	//svm:pdo loops(i, j)
	for i := 0; i < n; i++ {
	J:
		for j := 0; j < n; j++ {
			for range 2 {
				continue J
			}
		}
	}
}

// The directive may also stand below the label, above its loop.
func labeledBelow(n int, a []int) {
next:
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		for d := 2; d < i; d++ {
			if i%d == 0 {
				continue next
			}
		}
		a[i] = i
	}
}

func floatLoop() {
	//svm:pdo loops(x)
	for x := 0.0; x < 1; x += 0.5 { // want 6:`^pdo loop variable x must have an integer type$`
	}
}

func main() {}

func notForImplicit(n int) {
	s := 0
	//svm:pdo
	s = n // want 2:`^pdo \(line 199\) must be followed by a for loop, found an assignment$`
	_ = s
}

// Without loops(...) a pdo is the loop that follows, as it is written.
func implicit(n int, xs []float64, words []string) {
	hits := 0
	//svm:pdo reduction(+: hits)
	for range n {
		hits++
	}
	sum := 0.0
	//svm:pdo reduction(+: sum)
	for _, x := range xs {
		sum += x
	}
	//svm:pdo
	for k := range words {
		words[k] = "w"
	}
	//svm:pdo
	for i := n; i > 0; i -= 2 {
		xs[i] = 0
	}
	//svm:pdo
	for i := 0; i < len(xs); i++ {
		for j := range words { // the inner loop stays serial
			_ = j
		}
		xs[i] = 1
	}
	//svm:pdo
	for _, x := range xs {
		x *= 2 // the value variable is the iteration's own
		_ = x
	}
	//svm:pdo
	for i := 0; i < n; { // want 2:`^pdo loop i is not in canonical form \(it needs a post statement\)`
		i++
	}
	_, _ = hits, sum
}

func iterators(seq func(yield func(int) bool)) {
	//svm:pdo
	for v := range seq { // want 17:`^pdo loop v ranges over func\(yield func\(int\) bool\); a pdo ranges over an integer, a slice or an array \(an iterator yields its values one by one: collect them first, xs := slices.Collect\(seq\), and range over xs\)$`
		_ = v
	}
}

// rows: the rows of an array all have its type's length, so a pdo's inner
// loop may range over the row its outer loop picks.
func rows(g *[4][5]int, h [3][2]float64) float64 {
	//svm:pdo loops(r, c)
	for r := range g {
		for c := range g[r] {
			g[r][c] = r + c
		}
	}
	//svm:pdo loops(r, c)
	for r := range h {
		for c, v := range h[r] {
			h[r][c] = v * 2
		}
	}
	// len(g[r]) of an array is a constant, whatever r is.
	//svm:pdo loops(r, c)
	for r := 0; r < len(g); r++ {
		for c := len(g[r]) - 1; c >= 0; c-- {
			g[r][c]--
		}
	}
	return h[0][0]
}

type span struct{ lo, hi, step int }

// boundWrites: a body that assigns what a loop's condition or step reads
// would change the serial loop's iterations, not the pdo's.
func boundWrites(a []int, s *span, lim int) {
	n := len(a)
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		if a[i] < 0 {
			n = i // want 4:`^n is assigned in the body of the pdo at line \d+ and read by the condition i < n of loop i: Go tests the condition before every iteration, so without svmc the loop follows the change, but the pdo runs the iterations its bounds gave at its start; compute the bound before the loop$`
		}
	}
	//svm:pdo loops(i)
	for i := 0; i < len(a); i++ {
		a = append(a, i) // want 3:`^a is assigned in the body of the pdo at line \d+ and read by the condition i < len\(a\) of loop i`
	}
	//svm:pdo loops(i)
	for i := s.lo; i <= s.hi; i += s.step {
		s.hi--        // want 3:`^s.hi is assigned .* read by the condition i <= s.hi of loop i`
		(*s).step = 2 // want 3:`^\(\*s\).step is assigned .* read by the step i \+= s.step of loop i`
		s.lo = 0      // the lower bound is evaluated once in Go too
	}
	//svm:pdo loops(i, j)
	for i := 0; i < 4; i++ {
		for j := 0; j < lim; j++ {
			lim++ // want 4:`^lim is assigned .* read by the condition j < lim of loop j`
		}
	}
	// Not bounds: an element of the ranged slice, a shadowing variable, a
	// range loop's expression (Go evaluates it once).
	//svm:pdo loops(i)
	for i := 0; i < len(a); i++ {
		a[i] = 0
		n := 3
		_ = n
	}
	m := 5
	//svm:pdo loops(i)
	for i := range m {
		m--
		_ = i
	}
}
