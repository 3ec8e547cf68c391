// Ordinary Go around pdos: gotos over a pdo that ranges over a slice, an
// atomic update with an operand, locks of a statement and a block, and the
// processors and template directives that declare their variables (the
// generated declarations must not be jumped over); a generic function over
// an interface that embeds another, fallthrough and a closure adding to the
// reduction variable in a pdo body, a deferred function changing the named
// results.
package main

import (
	"errors"
	"fmt"
	"strings"
)

type Scorer interface {
	Score(int) int
}

type Named interface {
	Scorer
	Name() string
}

type sq struct{ tag string }

func (s sq) Score(i int) int { return i * i }
func (s sq) Name() string    { return s.tag }

func total[T Named](items []T, n int) (sum int, err error) {
	defer func() {
		if sum > 1000 {
			err = errors.New("too big")
			sum = 1000
		}
	}()
	//svm:pdo loops(i) reduction(+: sum)
	for i := 0; i < n; i++ {
		add := func(v int) { sum += v }
		it := items[i%len(items)]
		switch {
		case strings.HasPrefix(it.Name(), "a"):
			add(it.Score(i))
			fallthrough
		case it.Name() == "":
			add(1)
		default:
			add(0)
		}
	}
	return sum, nil
}

type embeds struct {
	Named
	bias int
}

func main() {
	items := []sq{{"alpha"}, {"beta"}, {""}}
	fmt.Println(total(items, 10))
	fmt.Println(total(items, 40))
	e := []embeds{{sq{"ax"}, 1}, {sq{"b"}, 2}}
	out := make([]int, 6)
	k := 0
	if len(e) > 5 {
		goto skip
	}
	//svm:pdo loops(i)
	for i := range out {
		out[i] = e[i%2].Score(i) + e[i%2].bias
	}
	k = 1
skip:
	fmt.Println(out, k)
	x, m := int64(1), int64(3)
	if k > 1 {
		goto done
	}
	//svm:pdo loops(i)
	for i := 0; i < 4; i++ {
		//svm:atomic
		x *= m
	}
done:
	fmt.Println(x)
	hist := make([]int, 4)
	if x < 0 {
		goto tally
	}
	//svm:pdo loops(i)
	for i := 0; i < 40; i++ {
		//svm:lock(hist[i%4])
		hist[i%4]++
	}
	//svm:lock(hist[0])
	hist[0] += 100
	//svm:lock(hist[1], hist[2])
	{
		hist[1]++
		hist[2]--
	}
tally:
	fmt.Println(hist)
	grid := make([]float64, 16)
	if hist[0] < 0 {
		goto sum
	}
	//svm:processors P(nprocs())
	//svm:template T(16)
	//svm:distribute (block) onto P :: T
	//svm:pdo loops(i) strategy(on_home(T(i)))
	for i := 0; i < 16; i++ {
		grid[i] = float64(i) / 2
	}
sum:
	fmt.Println(grid[15])
}
