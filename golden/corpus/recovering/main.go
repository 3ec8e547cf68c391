// Panics recovered the way Go programs recover them: a parser that panics
// on bad input and a caller that turns the panic into an error, a runtime
// error in an iteration, a loader in a section, and the same in every
// processor's copy of replicated code. A pdo or a section that panics must
// unwind to the same deferred recover as the serial loop, with the value
// of the first failing iteration, and the program must go on as before.
// Also prints whose argument is one call of several results.
package main

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
)

type parseError struct {
	line int
	msg  string
}

func (e *parseError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

type evaluator interface{ eval(line int, s string) int }

type adder struct{}

// eval sums the numbers of s, panicking with a *parseError on a bad one.
func (adder) eval(line int, s string) int {
	sum := 0
	for _, f := range strings.Fields(s) {
		v, err := strconv.Atoi(f)
		if err != nil {
			panic(&parseError{line, "not a number: " + f})
		}
		sum += v
	}
	return sum
}

// evalAll evaluates every line; a bad line becomes the error, and any
// other panic goes on up.
func evalAll(ev evaluator, lines []string) (sums []int, total int, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*parseError)
			if !ok {
				panic(r)
			}
			sums, err = nil, pe
		}
	}()
	sums = make([]int, len(lines))
	//svm:pdo loops(i) reduction(+: total)
	for i := 0; i < len(lines); i++ {
		sums[i] = ev.eval(i+1, lines[i])
		total += sums[i]
	}
	return sums, total, nil
}

// lookup indexes a table with user-given positions; a position out of range
// is a runtime error, recovered two calls up.
func lookup(table []int, pos []int) []int {
	out := make([]int, len(pos))
	//svm:pdo loops(i)
	for i := 0; i < len(pos); i++ {
		out[i] = table[pos[i]]
	}
	return out
}

func safeLookup(table []int, pos []int) (out []int, err error) {
	defer func() {
		if r := recover(); r != nil {
			if re, ok := r.(runtime.Error); ok {
				err = fmt.Errorf("lookup: %w", re)
				return
			}
			panic(r)
		}
	}()
	return lookup(table, pos), nil
}

var errMissing = errors.New("missing")

func load(name string) string {
	if name == "" {
		panic(fmt.Errorf("load: %w", errMissing))
	}
	return strings.ToUpper(name)
}

func loadThree(a, b, c string) (got [3]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = r.(error)
		}
	}()
	//svm:psection
	{
		//svm:section
		{
			got[0] = load(a)
		}
		//svm:section
		{
			got[1] = load(b)
		}
		//svm:section
		{
			got[2] = load(c)
		}
	}
	return got, nil
}

// tally counts in a critical section, which a bad value panics inside:
// the section must be left, or the next call waits for it forever.
func tally(xs []int) (hist [3]int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tally: %v", r)
		}
	}()
	//svm:pdo loops(i)
	for i := 0; i < len(xs); i++ {
		//svm:critical
		if xs[i] < 0 {
			panic(fmt.Sprint("negative at ", i))
		}
		hist[xs[i]%3]++
		//svm:end critical
	}
	return hist, nil
}

func divmod(a, b int) (int, int) { return a / b, a % b }

func main() {
	var ev evaluator = adder{}
	inputs := [][]string{
		{"1 2 3", "4 5", "6", "7 8 9", "10"},
		{"1 2", "3 x", "4", "5 y 6", "7"},
		{"1", "2", "3", "4", "oops"},
		{"11", "22", "33", "44", "55", "66", "77", "88"},
	}
	for round, lines := range inputs {
		sums, total, err := evalAll(ev, lines)
		if err != nil {
			// total is unspecified after a panic: parallel shares may
			// have added more than the serial loop did before it.
			total = -1
		}
		fmt.Println("round", round, sums, total, err)
		var pe *parseError
		if errors.As(err, &pe) {
			fmt.Println("  bad line", pe.line)
		}
	}

	table := []int{10, 20, 30, 40}
	fmt.Println(safeLookup(table, []int{3, 2, 1, 0}))
	_, err := safeLookup(table, []int{0, 1, 7, 2, 9, 3})
	fmt.Println(err)

	fmt.Println(loadThree("a", "b", "c"))
	got, err := loadThree("a", "", "")
	fmt.Println(got[0], err, errors.Is(err, errMissing))

	good := []int{1, 2, 3, 4, 5, 6, 7, 8}
	fmt.Println(tally(good))
	_, err = tally([]int{1, 2, -3, 4, 5, 6, 7, 8})
	fmt.Println(err)
	fmt.Println(tally(good))

	//svm:replicated
	{
		_, _, err := evalAll(ev, []string{"1", "two", "3"})
		if err == nil {
			panic("a processor's copy did not see the panic")
		}
	}

	fmt.Println(divmod(17, 5))
	fmt.Print(divmod(9, 4))
	fmt.Println()
	fmt.Println(strconv.Atoi("42"))
	fmt.Println(strconv.Atoi("4x2"))
}
