// Command tally adds numbers parsed under a critical section; a parse
// error panics inside the section and the caller recovers it, as a Go
// program may: the section must not stay held (it deadlocked before).
package main

import (
	"fmt"
	"strconv"
)

var total int

func add(s string) {
	//svm:critical acc
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	total += n
	//svm:end critical acc
}

func safeAdd(s string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	add(s)
	return true
}

func main() {
	in := []string{"1", "2", "x", "4", "5", "y", "7", "8"}
	bad := 0
	//svm:pdo reduction(+: bad)
	for _, s := range in {
		if !safeAdd(s) {
			bad++
		}
	}
	fmt.Println(total, bad)
	fmt.Println(safeAdd("10"), safeAdd("z"), total)
}
