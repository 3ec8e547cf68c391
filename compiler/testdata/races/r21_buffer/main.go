// want race=yes line=11
// a shared strings.Builder written by every processor
package main

import "strings"

func main() {
	var sb strings.Builder
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		sb.WriteString("x")
	}
	_ = sb.Len()
}
