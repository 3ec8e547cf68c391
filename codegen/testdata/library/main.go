// A program whose library holds directives and a message call: the
// runtime's tables must give their positions in the library's files.
package main

import (
	"fmt"

	"github.com/svmc/svmc/codegen/testdata/library/lib"
)

func main() {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(i)
	}
	fmt.Println(lib.Sum(xs), lib.Ring(3))
}
