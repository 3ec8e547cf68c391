// want race=no
// the twin of s02: the method counts in the iteration's own struct
package main

type stats struct{ hits, misses int }

type cache struct{ keys []int }

func (c *cache) lookup(k int, st *stats) bool { return record(k < len(c.keys), st) }

func record(hit bool, st *stats) bool {
	if hit {
		st.hits++
	} else {
		st.misses++
	}
	return hit
}

func main() {
	c := &cache{keys: make([]int, 32)}
	per := make([]stats, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		c.lookup(i, &per[i])
	}
}
