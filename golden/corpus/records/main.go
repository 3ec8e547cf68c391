// Records: a worker pool of goroutines parses records in a package of its
// own (an error type found with errors.As), a pdo over an int32 range calls a
// generic function and a function with a deferred fix-up, two reductions;
// a psection of two sections (a map behind an interface with an embedded
// struct, a sorted key list), a replicated region by processor id, and a
// pdo with labelled break and continue marking a shared slice. Written as
// svmc's --mpi warnings advise, it prints the same on any number of ranks.
package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/svmc/svmc/golden/corpus/records/pipe"
	"github.com/svmc/svmc/rtlib"
)

type Counter interface {
	Add(k string, v int)
	Total() int
}

type base struct{ total int }

func (b *base) Total() int { return b.total }

type byKey struct {
	base
	m map[string]int
}

func (c *byKey) Add(k string, v int) {
	if c.m == nil {
		c.m = map[string]int{}
	}
	c.m[k] += v
	c.total += v
}

func square[T int | int64](x T) T { return x * x }

func weight(r pipe.Record) (w int) {
	defer func() {
		if w < 0 {
			w = 0
		}
	}()
	return square(r.Value) - 3
}

func main() {
	var lines []string
	for i := range 400 {
		lines = append(lines, fmt.Sprintf("%c=%d", 'a'+rune(i%5), i%17))
	}
	lines[77] = "oops"
	recs, err := pipe.Parse(lines, 3)
	var pe *pipe.ParseError
	if errors.As(err, &pe) {
		fmt.Println("error at line", pe.Line)
	}
	n := int32(len(recs))
	weights := make([]int, n)
	//svm:shared weights
	total := 0
	hits := 0
	//svm:pdo loops(i) reduction(+: total) reduction(+: hits)
	for i := range n {
		w := weight(recs[i])
		weights[i] = w
		total += w
		if w > 100 {
			hits++
		}
	}
	fmt.Println("total", total, "hits", hits)

	var c byKey
	var order []string
	//svm:psection
	{
		//svm:section
		{
			for _, r := range recs {
				c.Add(r.Key, r.Value)
			}
		}
		//svm:section
		{
			keys := map[string]bool{}
			for _, r := range recs {
				keys[r.Key] = true
			}
			for k := range keys {
				order = append(order, k)
			}
			sort.Strings(order)
		}
	}
	fmt.Println("keys", strings.Join(order, ","), "total", c.Total())

	best := make([]int, rtlib.NumProcessors())
	//svm:shared best
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		for i := me; i < len(weights); i += len(best) {
			best[me] = max(best[me], weights[i])
		}
	}
	m := 0
	for _, b := range best {
		m = max(m, b)
	}
	fmt.Println("max weight", m)

	mark := make([]bool, 40)
	//svm:shared mark
	//svm:pdo loops(i)
	for i := 0; i < 40; i++ {
	inner:
		for j := 0; j < 10; j++ {
			if (i+j)%7 == 0 {
				continue inner
			}
			if j > 5 {
				break inner
			}
		}
		if i%10 == 0 {
			mark[i] = true
		}
	}
	var seen []int
	for i, ok := range mark {
		if ok {
			seen = append(seen, i)
		}
	}
	fmt.Println("seen", seen)
}
