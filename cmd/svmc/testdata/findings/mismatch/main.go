// want kind="distribution mismatch" line=21 stage=6
// Two loops write one shared array of four pages, the first block-wise
// (processor 0 pages 0-1, processor 1 pages 2-3), the second cyclic(512)
// (processor 0 pages 0 and 2, processor 1 pages 1 and 3): pages 1 and 2
// change hands twice per iteration. Each loop alone keeps its pages; the
// owners the one leaves do not follow the other's distribution. Found
// from the faults of stage 6 (the processor that sent each page, and
// whose write made it the owner).
package main

import "fmt"

func main() {
	c := make([]int64, 2048)
	//svm:shared c
	for it := 0; it < 20; it++ {
		//svm:pdo label(smooth) loops(i) strategy(block)
		for i := 0; i < len(c); i++ {
			c[i] += int64(i)
		}
		//svm:pdo label(scale) loops(i) strategy(cyclic(512))
		for i := 0; i < len(c); i++ {
			c[i] = c[i] / 2
		}
	}
	fmt.Println(c[2047])
}
