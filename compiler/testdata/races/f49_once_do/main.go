// want race=no
// the first iteration to come sets a flag through a sync.Once shared by all
package main

import (
	"fmt"
	"sync"
)

type cache struct {
	once  sync.Once
	ready bool
}

func main() {
	var once sync.Once
	first := -1
	c := &cache{}
	//svm:pdo loops(i)
	for i := 0; i < 100; i++ {
		once.Do(func() { first = i })
		c.once.Do(func() { c.ready = true })
	}
	fmt.Println(first >= 0, c.ready)
}
