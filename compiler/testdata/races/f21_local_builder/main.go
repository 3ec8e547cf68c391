// want race=no
// a strings.Builder per iteration
package main

import "strings"

func main() {
	out := make([]string, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		var sb strings.Builder
		sb.WriteString("x")
		out[i] = sb.String()
	}
}
