// Results: a function with named results that a deferred recover sets,
// returning a pointer error type found by errors.As; a //go:noinline
// function called in a pdo; a pdo in a closure that sync.OnceValue runs once;
// sort.Slice with a method value; runtime.Goexit running a goroutine's
// defers.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
)

type shapeErr struct{ idx int }

func (e *shapeErr) Error() string { return fmt.Sprintf("bad shape %d", e.idx) }

//go:noinline
func area(w, h int) int { return w * h }

// total has named results changed by a deferred function.
func total(ws []int) (sum int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	//svm:pdo reduction(+: sum)
	for i := range ws {
		sum += area(ws[i], 2)
	}
	if sum > 1000 {
		return sum, &shapeErr{idx: len(ws)}
	}
	return
}

type people []string

func (p people) less(i, j int) bool { return p[i] < p[j] }

func main() {
	ws := make([]int, 100)
	for i := range ws {
		ws[i] = i % 13
	}
	s, err := total(ws)
	var se *shapeErr
	fmt.Println(s, errors.As(err, &se), se)

	once := sync.OnceValue(func() int {
		t := 0
		//svm:pdo reduction(+: t)
		for i := 0; i < 50; i++ {
			t += i
		}
		return t
	})
	fmt.Println(once(), once())

	p := people{"carol", "alice", "bob"}
	sort.Slice(p, p.less)
	fmt.Println(strings.Join(p, ","))

	done := make(chan struct{})
	go func() {
		defer close(done)
		defer fmt.Println("goexit ran defers")
		runtime.Goexit()
	}()
	<-done
	if len(os.Args) > 5 {
		os.Exit(3)
	}
}
