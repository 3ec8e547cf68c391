package rtlib

import (
	"fmt"
	"math"
	"reflect"
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
