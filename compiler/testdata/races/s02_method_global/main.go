// want race=yes line=27
// a method of a concrete type, called through a helper, writes a field of
// a package-level struct
package main

type stats struct{ hits, misses int }

var global stats

type cache struct{ keys []int }

func (c *cache) lookup(k int) bool { return record(k < len(c.keys)) }

func record(hit bool) bool {
	if hit {
		global.hits++
	} else {
		global.misses++
	}
	return hit
}

func main() {
	c := &cache{keys: make([]int, 32)}
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		c.lookup(i)
	}
}
