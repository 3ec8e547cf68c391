// want race=no
// twin of r33: the writes (a[0..98]) and the reads (a[100..149]) never meet; the GCD test alone cannot tell
package main

func main() {
	a := make([]int, 200)
	//svm:pdo loops(i)
	for i := 0; i < 50; i++ {
		a[2*i] = a[i+100] + 1
	}
}
