// want race=no
// even iterations write a[i], read a[i+1]: odd elements are never written
package main

func main() {
	a := make([]float64, 65)
	//svm:pdo loops(i)
	for i := 0; i < 64; i += 2 {
		a[i] = a[i+1]
	}
}
