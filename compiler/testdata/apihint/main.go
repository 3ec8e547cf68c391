// A program guessing the runtime API's names (TestRuntimeHint).
package main

import (
	"fmt"

	rt "github.com/svmc/svmc/rtlib"
)

func main() {
	fmt.Println(rt.NProcs(), rt.ProcessorID())
	rt.Barier()
}
