package rtlib

import (
	"reflect"
	"testing"
)

// TestReduceValue: partials handed over as values are folded into the
// variable with their operator, member by member, starting from the
// variable (min of strings, && of a named bool, + of complex numbers).
func TestReduceValue(t *testing.T) {
	type flag bool
	words := []string{"pear", "fig", "apple", "quince", "kiwi", "banana", "cherry", "date"}
	for _, n := range []int{1, 2, 3} {
		first, ok, z := "zzz", flag(true), complex(1, 1)
		runN(t, n, func(p *Proc) {
			p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: len(words) - 1, Step: 1}}, func(q *Proc, it *Iter) {
				f, o, s := first, ok, complex128(0)
				for it.Next() {
					w := words[it.Index(0)]
					f = min(f, w)
					o = o && flag(len(w) > 3) // fig
					s += complex(float64(len(w)), 1)
				}
				ReduceValue(it, &first, f, MinOf)
				ReduceValue(it, &ok, o, AndOf)
				ReduceValue(it, &z, s, SumOf)
			})
		})
		if first != "apple" || ok || z != complex(1+38, 1+8) {
			t.Errorf("n=%d: min %q, && %v, + %v; want apple, false, (39+9i)", n, first, ok, z)
		}
	}
}

// TestValueEncoding: what travels between ranks decodes to the value sent,
// named types included, and a cut buffer is an error, not a panic.
func TestValueEncoding(t *testing.T) {
	type name string
	type flag bool
	vals := []any{"", "héllo", name("x"), true, flag(false), int8(-3), uint16(65535), int64(-1 << 62),
		float32(1.5), 2.25, complex64(1 - 2i), complex(3, 4), uintptr(7)}
	var b []byte
	for _, v := range vals {
		b = encodeValue(b, reflect.ValueOf(v))
	}
	for _, v := range vals {
		got := reflect.New(reflect.TypeOf(v)).Elem()
		var err error
		if b, err = decodeValue(b, got); err != nil || got.Interface() != v {
			t.Fatalf("decoded %v (%v), want %v", got, err, v)
		}
	}
	if len(b) != 0 {
		t.Errorf("%d bytes left", len(b))
	}
	full := encodeValue(nil, reflect.ValueOf("héllo"))
	for k := range len(full) {
		if _, err := decodeValue(full[:k], reflect.New(reflect.TypeOf("")).Elem()); err == nil {
			t.Errorf("a string cut to %d bytes decoded", k)
		}
	}
}
