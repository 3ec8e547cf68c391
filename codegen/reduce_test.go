package codegen

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

// TestRealNumberTypeParams: a reduction variable of a type parameter whose
// type set holds only integers and floats is reduced as a value (and so
// combines between ranks); one that may be complex, or is unconstrained,
// keeps the closure.
func TestRealNumberTypeParams(t *testing.T) {
	const src = `package p

type Int interface{ ~int | ~int64 }
type Float interface{ ~float32 | ~float64 }
type Real interface{ Int | Float }
type Num interface{ Real | ~complex128 }
type Ordered interface{ comparable; Real }

func a[T Real](x T)                  {}
func b[T Num](x T)                   {}
func c[T any](x T)                   {}
func d[T ~int | ~uint8](x T)         {}
func e[T Ordered](x T)               {}
func f[T interface{ ~string }](x T)  {}
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{file}, info); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"a": true, "b": false, "c": false, "d": true, "e": true, "f": false}
	for id, o := range info.Defs {
		fn, ok := o.(*types.Func)
		if !ok {
			continue
		}
		x := fn.Type().(*types.Signature).Params().At(0).Type()
		if got := realNumber(x); got != want[id.Name] {
			t.Errorf("%s: realNumber(%s) = %v, want %v", id.Name, x, got, want[id.Name])
		}
	}
}
