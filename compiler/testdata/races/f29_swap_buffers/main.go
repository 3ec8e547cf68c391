// want race=no
// double buffering: b is written from a, then the two are swapped; a is
// a parameter the swap assigns once, but never b's storage at the loop
package main

func smooth(a []float64, rounds int) []float64 {
	b := make([]float64, len(a))
	for range rounds {
		//svm:pdo loops(i)
		for i := 1; i < len(a)-1; i++ {
			b[i] = (a[i-1] + a[i] + a[i+1]) / 3
		}
		a, b = b, a
	}
	return a
}

func main() {
	smooth(make([]float64, 64), 4)
}
