// Every construct of tasks and synchronisation with a schedule that makes
// each processor's records the same from run to run: sections (one with
// its own processors), a pdo nested in a section, critical sections, locks,
// atomic updates, replicated and exclusive regions (both forms), a split
// barrier and explicit barriers.
package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	hits := make([]int, 8)
	named, unnamed, locked, atomic := 0, 0, 0, 0.0

	//svm:processors Pair(2)
	//svm:psection
	{
		//svm:section processors(Pair)
		{
			//svm:pdo label(inner) loops(i)
			for i := 0; i < 8; i++ {
				hits[i]++
			}
		}
		//svm:section
		named += 100
	}

	//svm:pdo label(sync) loops(i)
	for i := 0; i < 8; i++ {
		//svm:critical tally
		named++
		//svm:critical
		unnamed += 2
		//svm:end critical
		//svm:lock(locked, hits[i])
		locked += hits[i]
		//svm:atomic
		atomic += 0.5
	}

	replicas := 0
	//svm:replicated
	//svm:atomic
	replicas++

	leaders := 0
	//svm:replicated
	//svm:barrier_checkin
	//svm:exclusive
	leaders++
	//svm:end exclusive
	//svm:barrier_checkout
	//svm:barrier
	//svm:end replicated

	fmt.Println(hits, named, unnamed, locked, atomic, leaders)
	fmt.Println("replicated on every processor:", replicas == rtlib.NumProcessors())
}
