// Package reduce is a library whose exported table holds function
// literals with pdo loops: reducers chosen by name at run time.
package reduce

// By maps a reducer's name to the reducer.
var By = map[string]func(xs ...float64) float64{
	"sum": func(xs ...float64) float64 {
		s := 0.0
		//svm:pdo loops(i) reduction(+: s)
		for i := range xs {
			s += xs[i]
		}
		return s
	},
	"max": func(xs ...float64) (m float64) {
		//svm:pdo loops(i) reduction(max: m)
		for i := range xs {
			m = max(m, xs[i])
		}
		return m
	},
	"count": func(xs ...float64) float64 { return float64(len(xs)) },
}

// Fill has more parameters than rtlib's shared traced entries take.
var Fill = func(a, b, c, d, e, f, g, h int, _ string, out []int) (int, int, int, int) {
	//svm:pdo loops(i)
	for i := range out {
		out[i] = a + b + c + d + e + f + g + h + i
	}
	return a, b, c, d
}
