// want race=no
// out[i] from a function of in[i]
package main

func square(x float64) float64 { return x * x }

func main() {
	in := make([]float64, 64)
	out := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		out[i] = square(in[i])
	}
}
