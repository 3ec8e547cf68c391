package rtlib

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"

	"github.com/svmc/svmc/rtlib/internal/stats"
)

// Op is a reduction operator.
type Op int

// Reduction operators.
const (
	OpAdd Op = iota
	OpMul
	OpMin
	OpMax
	OpAnd // bitwise and
	OpOr  // bitwise or
	OpXor // bitwise xor
)

func (op Op) String() string {
	switch op {
	case OpAdd:
		return "+"
	case OpMul:
		return "*"
	case OpMin:
		return "min"
	case OpMax:
		return "max"
	case OpAnd:
		return "&"
	case OpOr:
		return "|"
	case OpXor:
		return "^"
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

// Number is the types reduction variables may have.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// Identity returns the identity element of op for the type of like (named
// types with a numeric underlying type included): 0 for +, |, ^; 1 for *;
// the largest value (+Inf) for min; the smallest (-Inf) for max; all bits
// set for &. It panics for an operator the type does not have (min/max of
// complex numbers, bit operations on floats), which the compiler rejects.
func Identity[T Number](like T, op Op) T {
	var z T
	switch op {
	case OpAdd, OpOr, OpXor:
		if op != OpAdd {
			if k := reflect.TypeOf(z).Kind(); k >= reflect.Float32 {
				panic(fmt.Sprintf("svm_rt: Identity: operator %v of %T", op, z))
			}
		}
		return z
	case OpMul:
		return T(1)
	}
	v := reflect.ValueOf(&z).Elem()
	switch k := v.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		bits := v.Type().Bits()
		hi := int64(math.MaxInt64 >> (64 - bits))
		switch op {
		case OpMin:
			v.SetInt(hi)
		case OpMax:
			v.SetInt(-hi - 1)
		case OpAnd:
			v.SetInt(-1)
		default:
			goto bad
		}
	case k >= reflect.Uint && k <= reflect.Uintptr:
		switch op {
		case OpMin, OpAnd:
			v.SetUint(math.MaxUint64 >> (64 - v.Type().Bits()))
		case OpMax:
			v.SetUint(0)
		default:
			goto bad
		}
	case k == reflect.Float32 || k == reflect.Float64:
		switch op {
		case OpMin:
			v.SetFloat(math.Inf(1))
		case OpMax:
			v.SetFloat(math.Inf(-1))
		default:
			goto bad
		}
	default:
		goto bad
	}
	return z
bad:
	panic(fmt.Sprintf("svm_rt: Identity: operator %v of %T", op, z))
}

// Real is a number a partial result fits in 64 bits for: every Number but
// the complex ones.
type Real interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// partial is one reduction's share of a member, kept in the member's Iter
// as bits with the kind of its type, so that folding it in needs no closure
// and a loop with reductions allocates nothing.
type partial struct {
	dst  unsafe.Pointer
	bits uint64
	op   Op
	kind reflect.Kind
}

// ReduceInto records this member's partial result part of the reduction of
// *dst with op. The leader folds the members' partials into *dst after the
// PDO's barrier, processor by processor in order, like Reduce.
func ReduceInto[T Real](it *Iter, dst *T, part T, op Op) {
	if st := it.p.st; st != nil { // statistics: Lib-DVM's StartRedGrp
		sv := st.Switch(stats.StartRed)
		handOver(it, dst, part, op)
		st.Restore(sv)
		return
	}
	handOver(it, dst, part, op)
}

// handOver is ReduceInto's work.
func handOver[T Real](it *Iter, dst *T, part T, op Op) {
	var bits uint64
	*(*T)(unsafe.Pointer(&bits)) = part
	it.partials = append(it.partials, partial{unsafe.Pointer(dst), bits, op, reflect.TypeFor[T]().Kind()})
}

// fold applies a partial to its variable.
func (pt *partial) fold() {
	switch pt.kind {
	case reflect.Int, reflect.Int64:
		foldInt((*int64)(pt.dst), *(*int64)(unsafe.Pointer(&pt.bits)), pt.op)
	case reflect.Int32:
		foldInt((*int32)(pt.dst), *(*int32)(unsafe.Pointer(&pt.bits)), pt.op)
	case reflect.Int16:
		foldInt((*int16)(pt.dst), *(*int16)(unsafe.Pointer(&pt.bits)), pt.op)
	case reflect.Int8:
		foldInt((*int8)(pt.dst), *(*int8)(unsafe.Pointer(&pt.bits)), pt.op)
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		foldInt((*uint64)(pt.dst), pt.bits, pt.op)
	case reflect.Uint32:
		foldInt((*uint32)(pt.dst), *(*uint32)(unsafe.Pointer(&pt.bits)), pt.op)
	case reflect.Uint16:
		foldInt((*uint16)(pt.dst), *(*uint16)(unsafe.Pointer(&pt.bits)), pt.op)
	case reflect.Uint8:
		foldInt((*uint8)(pt.dst), *(*uint8)(unsafe.Pointer(&pt.bits)), pt.op)
	case reflect.Float64:
		foldFloat((*float64)(pt.dst), *(*float64)(unsafe.Pointer(&pt.bits)), pt.op)
	case reflect.Float32:
		foldFloat((*float32)(pt.dst), *(*float32)(unsafe.Pointer(&pt.bits)), pt.op)
	}
}

func foldInt[T ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64](d *T, v T, op Op) {
	switch op {
	case OpAdd:
		*d += v
	case OpMul:
		*d *= v
	case OpMin:
		*d = min(*d, v)
	case OpMax:
		*d = max(*d, v)
	case OpAnd:
		*d &= v
	case OpOr:
		*d |= v
	case OpXor:
		*d ^= v
	}
}

func foldFloat[T ~float32 | ~float64](d *T, v T, op Op) {
	switch op {
	case OpAdd:
		*d += v
	case OpMul:
		*d *= v
	case OpMin:
		*d = min(*d, v)
	case OpMax:
		*d = max(*d, v)
	}
}
