package rtlib

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"reflect"

	"github.com/svmc/svmc/rtlib/internal/stats"
)

// Reductions whose partial result is not a real number (strings with min
// and max, booleans with && and ||, complex numbers, type parameters whose
// type set mixes kinds) hand the runtime their value and the operator as a
// function, so that between ranks the value can travel: ReduceValue.

// ReduceValue records this member's partial result part of the reduction
// of *dst with op (svm_rt.MaxOf, AndOf, ...). The leader folds the members'
// partials in processor order after the PDO's barrier: *dst = op(*dst,
// part); between ranks each rank's partials are combined first and the
// ranks' results folded in rank order, the same on every rank.
func ReduceValue[T any](it *Iter, dst *T, part T, op func(a, b T) T) {
	if st := it.p.st; st != nil { // statistics: Lib-DVM's StartRedGrp
		defer st.Restore(st.Switch(stats.StartRed))
	}
	it.values = append(it.values, &valuePart[T]{dst, part, op})
}

// The operators of ReduceValue.

// MinOf is min as a reduction operator.
func MinOf[T cmp.Ordered](a, b T) T { return min(a, b) }

// MaxOf is max as a reduction operator.
func MaxOf[T cmp.Ordered](a, b T) T { return max(a, b) }

// AndOf is && as a reduction operator.
func AndOf[T ~bool](a, b T) T { return a && b }

// OrOf is || as a reduction operator.
func OrOf[T ~bool](a, b T) T { return a || b }

// SumOf is + as a reduction operator.
func SumOf[T Number](a, b T) T { return a + b }

// ProductOf is * as a reduction operator.
func ProductOf[T Number](a, b T) T { return a * b }

// valuePartial is a member's partial result handed over by ReduceValue.
type valuePartial interface {
	fold()                    // into the variable
	merge(other valuePartial) // another member's partial of the same reduction into this one
	// foldInto folds this partial into the variable of other, another
	// member's partial of the same reduction (a variable of its own).
	foldInto(other valuePartial)
	sameVariable(other valuePartial) bool
	// acrossRanks sets this partial to the ranks' partials, one value read
	// from each rank's encoding (advanced), combined in rank order.
	acrossRanks(encs [][]byte) error
	encode(b []byte) []byte
}

type valuePart[T any] struct {
	dst  *T
	part T
	op   func(a, b T) T
}

func (v *valuePart[T]) fold()                    { *v.dst = v.op(*v.dst, v.part) }
func (v *valuePart[T]) merge(other valuePartial) { v.part = v.op(v.part, other.(*valuePart[T]).part) }

func (v *valuePart[T]) foldInto(other valuePartial) {
	d := other.(*valuePart[T]).dst
	*d = v.op(*d, v.part)
}

func (v *valuePart[T]) sameVariable(other valuePartial) bool {
	o, ok := other.(*valuePart[T])
	return ok && o.dst == v.dst
}

func (v *valuePart[T]) encode(b []byte) []byte {
	return encodeValue(b, reflect.ValueOf(&v.part).Elem())
}

func (v *valuePart[T]) acrossRanks(encs [][]byte) error {
	var all T
	for k := range encs {
		var x T
		rest, err := decodeValue(encs[k], reflect.ValueOf(&x).Elem())
		if err != nil {
			return err
		}
		encs[k] = rest
		if k == 0 {
			all = x
		} else {
			all = v.op(all, x)
		}
	}
	v.part = all
	return nil
}

// encodeValue appends the value of a string, bool or number.
func encodeValue(b []byte, v reflect.Value) []byte {
	le := binary.LittleEndian
	switch k := v.Kind(); {
	case k == reflect.String:
		b = le.AppendUint64(b, uint64(v.Len()))
		return append(b, v.String()...)
	case k == reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case k >= reflect.Int && k <= reflect.Int64:
		return le.AppendUint64(b, uint64(v.Int()))
	case k >= reflect.Uint && k <= reflect.Uintptr:
		return le.AppendUint64(b, v.Uint())
	case k == reflect.Float32 || k == reflect.Float64:
		return le.AppendUint64(b, math.Float64bits(v.Float()))
	case k == reflect.Complex64 || k == reflect.Complex128:
		c := v.Complex()
		b = le.AppendUint64(b, math.Float64bits(real(c)))
		return le.AppendUint64(b, math.Float64bits(imag(c)))
	}
	panic("svm_rt: a reduction of a " + v.Type().String() + " between ranks")
}

var errShortValue = errors.New("a reduction's value between ranks is cut short")

// decodeValue reads into v what encodeValue wrote and returns the rest.
func decodeValue(b []byte, v reflect.Value) ([]byte, error) {
	le := binary.LittleEndian
	word := func() (uint64, bool) {
		if len(b) < 8 {
			return 0, false
		}
		x := le.Uint64(b)
		b = b[8:]
		return x, true
	}
	switch k := v.Kind(); {
	case k == reflect.String:
		n, ok := word()
		if !ok || uint64(len(b)) < n {
			return nil, errShortValue
		}
		v.SetString(string(b[:n]))
		return b[n:], nil
	case k == reflect.Bool:
		if len(b) < 1 {
			return nil, errShortValue
		}
		v.SetBool(b[0] != 0)
		return b[1:], nil
	case k == reflect.Complex64 || k == reflect.Complex128:
		re, ok1 := word()
		im, ok2 := word()
		if !ok1 || !ok2 {
			return nil, errShortValue
		}
		v.SetComplex(complex(math.Float64frombits(re), math.Float64frombits(im)))
		return b, nil
	}
	x, ok := word()
	if !ok {
		return nil, errShortValue
	}
	switch k := v.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		v.SetInt(int64(x))
	case k >= reflect.Uint && k <= reflect.Uintptr:
		v.SetUint(x)
	default:
		v.SetFloat(math.Float64frombits(x))
	}
	return b, nil
}
