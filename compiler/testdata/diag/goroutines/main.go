// A pdo, psection or barrier in the function literal of a go statement
// runs on a goroutine that is not one of the program's processors: a
// warning says what it does there. A literal the processor calls itself,
// and a literal nested in the started one but called there, are told apart.
package main

import (
	"sync"
	"time"
)

func main() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := 0
		//svm:pdo loops(i) reduction(+: s) // want 3:`^warning: pdo in the goroutine started at line 15 runs all its iterations on that goroutine: a goroutine the program starts is not one of its processors; reach the pdo from the processors' code to run it in parallel$`
		for i := 0; i < 10; i++ {
			s += i
		}
		//svm:barrier // want 3:`^warning: barrier in the goroutine started at line 15 returns at once`
		func() {
			//svm:psection // want 4:`^warning: psection in the goroutine started at line 15 runs its sections one after the other`
			{
				//svm:section
				println(s)
			}
		}()
		println(s)
	}()
	wg.Wait()
	func() {
		//svm:barrier
	}()
	t := 0
	//svm:pdo loops(i) reduction(+: t)
	for i := range 4 {
		t += i
	}
	println(t)
	// A goroutine a call starts (wg.Go, time.AfterFunc) is one the
	// program starts as well.
	wg.Go(func() {
		u := 0
		//svm:pdo loops(i) reduction(+: u) // want 3:`^warning: pdo in the goroutine started at line 44 runs all its iterations on that goroutine`
		for i := range 4 {
			u += i
		}
		println(u)
	})
	wg.Wait()
	stop := time.AfterFunc(time.Hour, func() {
		//svm:barrier // want 3:`^warning: barrier in the goroutine started at line 53 returns at once`
	})
	stop.Stop()
}
