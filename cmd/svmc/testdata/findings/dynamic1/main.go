// want kind="chunk fetching" line=10 share=-1
// dynamic(1) over 2 M tiny iterations: the time goes into fetching chunks.
package main

import "fmt"

func main() {
	xs := make([]float64, 2_000_000)
	s := 0.0
	//svm:pdo loops(i) strategy(dynamic(1)) reduction(+: s)
	for i := 0; i < len(xs); i++ {
		s += float64(i) * 0.5
	}
	fmt.Println(s > 0)
}
