// want race=no
// the header row and the last row's value are recorded by the one
// iteration that has them (if i == 0, a switch case n-1, if i ==
// len(rows)-1), and nothing else in the loop touches them
package main

import "fmt"

func main() {
	rows := [][]string{{"id", "v"}, {"1", "2"}, {"3", "4"}}
	n := len(rows)
	var header, last []string
	lens := make([]int, n)
	edge := make([]string, 2)
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		lens[i] = len(rows[i])
		if i == 0 {
			header = rows[i]
			edge[0] = rows[i][0]
		}
		switch i {
		case n - 1:
			edge[1] = rows[i][1]
		}
		if i == len(rows)-1 {
			last = rows[i]
		}
	}
	fmt.Println(header, lens, edge, last)
}
