package main

type List[E any] struct{ items []E }

func (l *List[E]) Push(e E) {
	l.items = append(l.items, e)
}

func helper(a []float64) {
	var l List[float64]
	s := 0.0
	//svm:shared a
	//svm:trace_region r1
	{
		//svm:pdo loops(i) reduction(+: s)
		for i := range a {
			s += a[i]
		}
		//svm:trace_region r2
		l.Push(s)
	}
	//svm:trace_region r3
	//svm:end trace_region r3
}

func init() {}

func (l List[E]) Len() int { return len(l.items) }
