// want race=yes line=9
// b[i] reads b[i+2], which a later iteration overwrites
package main

func main() {
	b := make([]float64, 66)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		b[i] = b[i+2]
	}
}
