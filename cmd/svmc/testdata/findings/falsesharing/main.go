// want kind="false sharing" line=16 stage=4
// Two processors bump alternate elements of a shared two-page array 50
// times (cyclic): in every instance both write both pages, and on a
// distributed SVM machine each page goes back and forth. The report
// predicts the cost from the fault sums of stage 4 (the SVM layer is off
// below it).
package main

import "fmt"

func main() {
	c := make([]int64, 1024)
	//svm:shared c
	total := int64(0)
	for it := 0; it < 50; it++ {
		//svm:pdo label(bump) loops(i) strategy(cyclic)
		for i := 0; i < len(c); i++ {
			c[i] += int64(i)
		}
	}
	for _, x := range c {
		total += x
	}
	fmt.Println(total)
}
