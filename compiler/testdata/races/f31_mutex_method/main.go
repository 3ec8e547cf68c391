// want race=no
// a method that takes its struct's embedded mutex before it writes
package main

import "sync"

type index struct {
	sync.Mutex
	words map[string][]int
	n     int
}

func (ix *index) add(w string, doc int) {
	ix.Lock()
	defer ix.Unlock()
	ix.words[w] = append(ix.words[w], doc)
	ix.n++
}

func main() {
	ix := &index{words: map[string][]int{}}
	docs := []string{"a", "b", "a", "c"}
	//svm:pdo loops(d)
	for d := 0; d < len(docs); d++ {
		ix.add(docs[d], d)
	}
}
