package rtlib

import (
	"math"
	"testing"
)

type celsius float64
type mask uint8
type count int16

func TestIdentity(t *testing.T) {
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got %v (%T), want %v (%T)", name, got, got, want, want)
		}
	}
	check("int +", Identity(3, OpAdd), 0)
	check("int *", Identity(3, OpMul), 1)
	check("int min", Identity(3, OpMin), math.MaxInt)
	check("int max", Identity(3, OpMax), math.MinInt)
	check("int &", Identity(3, OpAnd), -1)
	check("int |", Identity(3, OpOr), 0)
	check("int ^", Identity(3, OpXor), 0)
	check("int8 min", Identity(int8(3), OpMin), int8(math.MaxInt8))
	check("int8 max", Identity(int8(3), OpMax), int8(math.MinInt8))
	check("int32 max", Identity(int32(3), OpMax), int32(math.MinInt32))
	check("uint16 min", Identity(uint16(3), OpMin), uint16(math.MaxUint16))
	check("uint max", Identity(uint(3), OpMax), uint(0))
	check("uint64 &", Identity(uint64(3), OpAnd), uint64(math.MaxUint64))
	check("float64 min", Identity(2.5, OpMin), math.Inf(1))
	check("float32 max", Identity(float32(2.5), OpMax), float32(math.Inf(-1)))
	check("float64 *", Identity(2.5, OpMul), 1.0)
	check("complex *", Identity(1i, OpMul), complex(1, 0))
	// named types
	check("celsius min", Identity(celsius(20), OpMin), celsius(math.Inf(1)))
	check("celsius +", Identity(celsius(20), OpAdd), celsius(0))
	check("mask &", Identity(mask(1), OpAnd), mask(0xff))
	check("count max", Identity(count(1), OpMax), count(math.MinInt16))
	for _, bad := range []func(){
		func() { Identity(1.5, OpAnd) },
		func() { Identity(1.5, OpXor) },
		func() { Identity(1i, OpMin) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("bad operator accepted")
				}
			}()
			bad()
		}()
	}
}

// reduceOnce runs a PDO over 0..99 that reduces f(i) with op into x (start
// x0) on n processors, the way generated code does.
func reduceOnce[T Number](t *testing.T, n int, x0 T, op Op, f func(i int) T, combine func(a, b T) T) T {
	x := x0
	runN(t, n, func(p *Proc) {
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 99, Step: 1}}, func(q *Proc, it *Iter) {
			local := Identity(x0, op)
			for it.Next() {
				local = combine(local, f(it.Index(0)))
			}
			it.Reduce(func() { x = combine(x, local) })
		})
	})
	return x
}

// expectReduce folds the partial results of the default schedule's blocks
// in processor order.
func expectReduce[T Number](n int, x0 T, op Op, f func(i int) T, combine func(a, b T) T) T {
	x := x0
	bs := (100 + n - 1) / n
	for m := range n {
		local := Identity(x0, op)
		for i := m * bs; i < min(100, (m+1)*bs); i++ {
			local = combine(local, f(i))
		}
		x = combine(x, local)
	}
	return x
}

func TestReductions(t *testing.T) {
	fl := func(i int) float64 { return 0.1*float64(i) + 1/float64(i+3) }
	it := func(i int) int { return (i*7919)%1000 - 300 }
	bits := func(i int) uint32 { return uint32(i*2654435761) | 1<<(i%32) }
	fops := map[Op]func(a, b float64) float64{
		OpAdd: func(a, b float64) float64 { return a + b },
		OpMul: func(a, b float64) float64 { return a * (1 + b/1000) },
		OpMin: math.Min,
		OpMax: math.Max,
	}
	iops := map[Op]func(a, b int) int{
		OpAdd: func(a, b int) int { return a + b },
		OpMul: func(a, b int) int { return a * (b%3 + 1) },
		OpMin: func(a, b int) int { return min(a, b) },
		OpMax: func(a, b int) int { return max(a, b) },
		OpAnd: func(a, b int) int { return a & (b | 0x7ff0) },
		OpOr:  func(a, b int) int { return a | (b & 0x0ff0) },
		OpXor: func(a, b int) int { return a ^ b },
	}
	uops := map[Op]func(a, b uint32) uint32{
		OpAnd: func(a, b uint32) uint32 { return a & b },
		OpOr:  func(a, b uint32) uint32 { return a | b },
		OpXor: func(a, b uint32) uint32 { return a ^ b },
	}
	for n := 1; n <= 4; n++ {
		for op, c := range fops {
			x0 := 1.5
			got := reduceOnce(t, n, x0, op, fl, c)
			again := reduceOnce(t, n, x0, op, fl, c)
			want := expectReduce(n, x0, op, fl, c)
			if math.Float64bits(got) != math.Float64bits(want) || math.Float64bits(again) != math.Float64bits(got) {
				t.Errorf("float64 %v N=%d: got %v then %v, want %v", op, n, got, again, want)
			}
		}
		for op, c := range iops {
			x0 := 5
			if op == OpAnd {
				x0 = -1
			}
			if got, want := reduceOnce(t, n, x0, op, it, c), expectReduce(n, x0, op, it, c); got != want {
				t.Errorf("int %v N=%d: got %v, want %v", op, n, got, want)
			}
		}
		for op, c := range uops {
			if got, want := reduceOnce(t, n, uint32(7), op, bits, c), expectReduce(n, uint32(7), op, bits, c); got != want {
				t.Errorf("uint32 %v N=%d: got %v, want %v", op, n, got, want)
			}
		}
		// A named float type, summed: the serial order of the blocks.
		got := reduceOnce(t, n, celsius(0), OpAdd, func(i int) celsius { return celsius(fl(i)) },
			func(a, b celsius) celsius { return a + b })
		want := expectReduce(n, celsius(0), OpAdd, func(i int) celsius { return celsius(fl(i)) },
			func(a, b celsius) celsius { return a + b })
		if got != want {
			t.Errorf("celsius N=%d: got %v, want %v", n, got, want)
		}
	}
}

// TestReduceOrder checks that the combine closures run on the leader after
// the barrier, one member after the other in processor order.
func TestReduceOrder(t *testing.T) {
	const n = 4
	var order []int
	var leaders []int
	runN(t, n, func(p *Proc) {
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 7, Step: 1}}, func(q *Proc, it *Iter) {
			id := q.ID()
			it.Reduce(func() { order = append(order, id); leaders = append(leaders, Current().ID()) })
			it.Reduce(func() { order = append(order, 10+id) })
		})
	})
	if want := []int{0, 10, 1, 11, 2, 12, 3, 13}; !equalInts(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if want := []int{0, 0, 0, 0}; !equalInts(leaders, want) {
		t.Errorf("combines ran on %v", leaders)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReduceRepeats: under static schedules a floating-point sum is the
// same bits on every run for a given N, because each processor adds its
// iterations in iteration order and the partial sums are combined in
// processor order (README: "When a reduction repeats exactly"). The values
// make the order visible: a different grouping gives a different sum.
func TestReduceRepeats(t *testing.T) {
	const n, iters = 3, 30
	xs := make([]float64, iters)
	for i := range xs {
		// Large terms that cancel and small ones that get lost or not
		// depending on when they are added.
		xs[i] = 1 / float64(i+1)
		if i%5 == 0 {
			xs[i] = 1e16 * float64(1-2*(i/5%2))
		}
	}
	for _, c := range []struct {
		name  string
		sched Schedule
		owner func(i int) int
	}{
		{"block", LoopLevel(nil, Block()), func(i int) int { return i / (iters / n) }},
		{"cyclic", LoopLevel(nil, Cyclic(1)), func(i int) int { return i % n }},
	} {
		parts := make([]float64, n)
		for i, x := range xs {
			parts[c.owner(i)] += x
		}
		want, serial := 0.0, 0.0
		for _, p := range parts {
			want += p
		}
		for _, x := range xs {
			serial += x
		}
		if want == serial {
			t.Fatalf("%s: the values do not show the order of the sum", c.name)
		}
		for run := 0; run < 10; run++ {
			var got float64
			runN(t, n, func(p *Proc) {
				p.PDO(1, 1, c.sched, []Range{{Lo: 0, Hi: iters - 1, Step: 1}}, func(q *Proc, it *Iter) {
					s := 0.0
					for it.Next() {
						s += xs[it.Index(0)]
					}
					ReduceInto(it, &got, s, OpAdd)
				})
			})
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s run %d: %v, want %v (processor order)", c.name, run, got, want)
			}
		}
	}
}
