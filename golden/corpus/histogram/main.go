// Command histogram reduces slices and arrays element by element:
// reduction(+: h) of a histogram, max of per-bucket peaks, | of bit sets,
// min of float32s, as OpenMP reduces an array section.
package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

type Count int

type num interface{ ~int | ~int32 | ~float64 }

// columnSums adds each row into one vector: a slice of a type parameter.
func columnSums[T num](rows [][]T, width int) []T {
	sums := make([]T, width)
	//svm:pdo reduction(+: sums)
	for _, r := range rows {
		for j, v := range r {
			sums[j] += v
		}
	}
	return sums
}

func histogram(xs []float64, n int) []int {
	h := make([]int, n)
	//svm:pdo reduction(+: h)
	for _, x := range xs {
		k := min(int(x*float64(n)), n-1)
		h[k]++
	}
	return h
}

func main() {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 10000)
	for i := range xs {
		xs[i] = r.Float64()
	}
	fmt.Println(histogram(xs, 8))

	var letters [26]Count
	text := strings.Repeat("the quick brown fox jumps over the lazy dog ", 50)
	//svm:pdo strategy(cyclic(7)) reduction(+: letters)
	for i := 0; i < len(text); i++ {
		if c := text[i]; c >= 'a' && c <= 'z' {
			letters[c-'a']++
		}
	}
	fmt.Println(letters[:5], letters['z'-'a'])

	peaks := make([]float64, 4)
	for i := range peaks {
		peaks[i] = -1
	}
	var seen [4]uint8
	//svm:pdo reduction(max: peaks) reduction(|: seen)
	for i, x := range xs {
		b := i % 4
		peaks[b] = max(peaks[b], x)
		seen[b] |= 1 << (i % 8)
	}
	fmt.Printf("%.4f %v\n", peaks, seen)

	lows := []float32{10, 10, 10}
	//svm:pdo reduction(min: lows)
	for i := range 300 {
		lows[i%3] = min(lows[i%3], float32(xs[i]*10))
	}
	fmt.Printf("%.3f\n", lows)
	fmt.Println(columnSums([][]int{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, 3), columnSums([][]float64{{0.5, 1}, {1.5, 2}}, 2))
}
