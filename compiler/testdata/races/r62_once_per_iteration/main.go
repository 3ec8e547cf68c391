// want race=yes line=15
// a sync.Once declared in the body is another each iteration: every one writes
package main

import (
	"fmt"
	"sync"
)

func main() {
	first := -1
	//svm:pdo loops(i)
	for i := 0; i < 100; i++ {
		var once sync.Once
		once.Do(func() { first = i })
	}
	fmt.Println(first)
}
