// want race=no
// each row's elements through a local holding the row's start, and an
// index computed from it in the inner loop
package main

func main() {
	const w = 16
	img := make([]float64, 32*w)
	//svm:pdo loops(y)
	for y := 0; y < 32; y++ {
		row := y * w
		for x := 0; x < w; x++ {
			idx := row + x
			img[idx] = float64(x * y)
		}
	}
	_ = img
}
