// Parallel loops whose analysis the compiler tests check: the variable
// classes of a body, the normalised loop bounds, and the on_home subscripts.
// Each pdo has a label to find it by.
package main

type pt struct{ x int }

func classify(n int, a, b []float64, m [][]float64) (float64, float64) {
	var sum, mx float64
	scale := 2.0
	var p pt
	//svm:pdo label(classes) loops(i, j) reduction(+: sum; max: mx)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			t := a[i] * scale
			var u float64
			u = t + b[j]
			m[i][j] = u
			sum += u
			mx = max(mx, u)
			_ = p.x + i
			f := func(k int) float64 { return float64(k) * scale }
			_ = f(j)
		}
	}
	return sum, mx
}

func loops(n, lo, k int, a []float64, arr *[4]int) {
	//svm:pdo label(lt) loops(i)
	for i := 0; i < n; i++ {
		a[i] = 0
	}
	//svm:pdo label(le) loops(i)
	for i := 1; i <= n; i += 2 {
		a[i] = 0
	}
	//svm:pdo label(gt) loops(i)
	for i := n; i > 0; i-- {
		a[i] = 0
	}
	//svm:pdo label(ge) loops(i)
	for i := n - 1; i >= lo; i -= k {
		a[i] = 0
	}
	//svm:pdo label(rangeint) loops(i)
	for i := range n {
		a[i] = 0
	}
	//svm:pdo label(rangeslice) loops(i)
	for i, x := range a {
		a[i] = x * 2
	}
	//svm:pdo label(rangearray) loops(i)
	for i := range arr {
		arr[i] = 0
	}
	//svm:pdo label(nest) loops(i, j)
	for i := n; i >= 1; i-- {
		for j := range 10 {
			a[i] += float64(j)
		}
	}
}

func onHome(n int, m [][]float64) {
	const c = 1
	//svm:processors P(2)
	//svm:template T(n+2, n+2)
	//svm:distribute (block, *) onto P :: T
	//svm:pdo label(plain) loops(i, j) strategy(on_home(T(i, j)))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m[i][j] = 1
		}
	}
	//svm:pdo label(offsets) loops(i, j) strategy(on_home(T(i+1, 1+j)))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m[i][j] = 1
		}
	}
	//svm:pdo label(swapped) loops(i, j) strategy(on_home(T(j-2, 3)))
	for i := 0; i < n; i++ {
		for j := 2; j < n; j++ {
			m[i][j] = 1
		}
	}
	//svm:pdo label(general) loops(i, j) strategy(on_home(T(i*2, n-1)))
	for i := 0; i < n/2; i++ {
		for j := 0; j < n; j++ {
			m[i][j] = 1
		}
	}
	//svm:pdo label(mixed) loops(i, j) strategy(on_home(T((i), i+j)))
	for i := 0; i < n/2; i++ {
		for j := 0; j < n/2; j++ {
			m[i][j] = 1
		}
	}
	//svm:pdo label(named) loops(i, j) strategy(on_home(T(i+c, 0)))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m[i][j] = 1
		}
	}
}

func main() {
	a := make([]float64, 8)
	m := make([][]float64, 8)
	for i := range m {
		m[i] = make([]float64, 8)
	}
	println(classify(4, a, a, m))
	loops(4, 0, 1, a, &[4]int{})
	onHome(4, m)
}
