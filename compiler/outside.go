package compiler

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
)

// outsideFile is a Go file of another package of the program's module,
// parsed without types (fieldsSetOutside).
type outsideFile struct {
	name   string          // the path shown in messages
	syntax *ast.File       // nil when it does not parse
	shared map[string]bool // the names its //svm:shared directives give
}

// fieldsSetOutside lists where the program's other packages of the module
// (Config.Outside) may give field name of struct type owner a value:
// assignments x.name = v, &x.name, keyed literals {name: v} and unkeyed
// literals of a type named owner. Those files were not type-checked with
// this package, so a place is matched by names: a field of another
// type with the same name counts too (the message names the line). A
// value whose root is a name the file's //svm:shared directives give is
// shared storage; the rest is other.
func (p *Package) fieldsSetOutside(owner, name string) (shared, other []string) {
	if p.outside == nil {
		p.outside = []outsideFile{}
		fset := token.NewFileSet()
		for _, path := range p.cfg.Outside {
			f, _ := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
			shown := path
			if p.cfg.MainDir != "" {
				if rel, err := filepath.Rel(p.cfg.MainDir, path); err == nil {
					shown = filepath.ToSlash(rel)
				}
			}
			of := outsideFile{name: shown, syntax: f, shared: map[string]bool{}}
			if f != nil {
				for _, g := range f.Comments {
					for _, c := range g.List {
						if rest, ok := strings.CutPrefix(c.Text, "//svm:shared "); ok {
							for _, v := range strings.Split(rest, ",") {
								of.shared[strings.TrimSpace(v)] = true
							}
						}
					}
				}
			}
			p.outsideFset = fset
			p.outside = append(p.outside, of)
		}
	}
	for _, of := range p.outside {
		if of.syntax == nil {
			// A file that does not parse fails the build anyway.
			continue
		}
		give := func(value ast.Expr, at token.Pos) {
			place := fmt.Sprintf("%s:%d", of.name, p.outsideFset.Position(at).Line)
			if value != nil && of.shared[rootName(value)] {
				shared = append(shared, place)
			} else {
				other = append(other, place)
			}
		}
		ast.Inspect(of.syntax, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				for i, lhs := range x.Lhs {
					if sel, ok := ast.Unparen(lhs).(*ast.SelectorExpr); ok && sel.Sel.Name == name {
						var value ast.Expr
						if len(x.Rhs) == len(x.Lhs) {
							value = x.Rhs[i]
						}
						give(value, x.Pos())
					}
				}
			case *ast.UnaryExpr:
				if sel, ok := ast.Unparen(x.X).(*ast.SelectorExpr); ok && x.Op == token.AND && sel.Sel.Name == name {
					give(nil, x.Pos())
				}
			case *ast.CompositeLit:
				for _, el := range x.Elts {
					kv, keyed := el.(*ast.KeyValueExpr)
					if !keyed {
						if owner != "" && typeName(x.Type) == owner {
							give(nil, x.Pos()) // which element is the field: not worked out
							break
						}
						continue
					}
					if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
						give(kv.Value, kv.Pos())
					}
				}
			}
			return true
		})
	}
	return shared, other
}

// rootName is the variable a value's storage comes from by name: v of v,
// v[lo:hi], &v, v[i] (a row); "" otherwise.
func rootName(e ast.Expr) string {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SliceExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return ""
			}
			e = x.X
		default:
			return ""
		}
	}
}

// typeName is the name a composite literal's type is written with: Image
// of Image, lib.Image, lib.Image[T]; "" otherwise.
func typeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.IndexExpr:
		return typeName(x.X)
	case *ast.IndexListExpr:
		return typeName(x.X)
	}
	return ""
}
