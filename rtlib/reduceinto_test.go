package rtlib

import (
	"math"
	"testing"
)

type kelvin float32

// TestReduceInto folds partial results of every real kind and operator in
// processor order, like the closures of Reduce, and a PDO with reductions
// allocates nothing once its storage is warm.
func TestReduceInto(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4} {
		var (
			sum    int64
			prod   uint16 = 1
			lo     int8   = math.MaxInt8
			hi            = kelvin(math.Inf(-1))
			and    uint32 = math.MaxUint32
			or, xr uint8
			fsum   float64
		)
		body := func(p *Proc, it *Iter) {
			s, pr, l, h, a, o, x, f := Identity(sum, OpAdd), Identity(prod, OpMul), Identity(lo, OpMin), Identity(hi, OpMax),
				Identity(and, OpAnd), Identity(or, OpOr), Identity(xr, OpXor), Identity(fsum, OpAdd)
			for it.Next() {
				i := it.Index(0)
				s += int64(i)
				if i%4 == 1 {
					pr *= 2
				}
				l = min(l, int8(i-5))
				h = max(h, kelvin(i)/2)
				a &= ^uint32(1 << i)
				o |= uint8(1 << (i % 8))
				x ^= uint8(i)
				f += 0.5
			}
			ReduceInto(it, &sum, s, OpAdd)
			ReduceInto(it, &prod, pr, OpMul)
			ReduceInto(it, &lo, l, OpMin)
			ReduceInto(it, &hi, h, OpMax)
			ReduceInto(it, &and, a, OpAnd)
			ReduceInto(it, &or, o, OpOr)
			ReduceInto(it, &xr, x, OpXor)
			ReduceInto(it, &fsum, f, OpAdd)
		}
		runN(t, n, func(p *Proc) {
			p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 15, Step: 1}}, body)
		})
		if sum != 120 || prod != 16 || lo != -5 || hi != 7.5 || and != math.MaxUint32&^0xffff || or != 0xff || xr != 0 || fsum != 8 {
			t.Errorf("N=%d: sum %d prod %d lo %d hi %v and %#x or %#x xor %d fsum %v", n, sum, prod, lo, hi, and, or, xr, fsum)
		}
	}
}

func TestReduceIntoAllocatesNothing(t *testing.T) {
	var sum int
	body := func(p *Proc, it *Iter) {
		s := Identity(sum, OpAdd)
		for it.Next() {
			s++
		}
		ReduceInto(it, &sum, s, OpAdd)
	}
	runN(t, 2, func(p *Proc) {
		space := []Range{{Lo: 0, Hi: 99, Step: 1}}
		p.PDO(1, 1, DefaultSchedule(), space, body) // warm the storage
		if a := testing.AllocsPerRun(100, func() { p.PDO(1, 1, DefaultSchedule(), space, body) }); a != 0 {
			t.Errorf("%v allocations per PDO with a reduction, want 0", a)
		}
	})
	if sum != 100*102 {
		t.Errorf("sum %d, want %d", sum, 100*102)
	}
}
