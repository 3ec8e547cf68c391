package request

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var fuzzSeeds = []string{
	formsSrc,
	"CONFIG SVM_TraceStage: 2\nREQUEST (0-1) LOCAL main.PDO_LABEL(sweep): (PDOInfo), (BARRIER)\n",
	"REQUEST LOCAL *.*: (*.SVMInfo[a, b], *.SyncInfo)\nREQUEST GLOBAL MappingInfo",
	"INCLUDE \"x\\\"y.req\" # c\nINCLUDE a#b",
	"REQUEST LOCAL T.REG_NO.REG_NO(1-2, 0): (REGION)",
	"REQEUST GLOBAL TrOverhd\nREQUEST (5-2) LOCAL @MIAN.PDO_LABL(x): (BARRIER[a]",
	"CONFIG SVM_TraceBuf_Size: 99999999999G\nCONFIG SVM_Kernel_TraceBuf_Size: 0\n\xff\xfe",
	"\ufeffREQUEST\n(\n0\n)\nLOCAL\nsolve\n.\n*\n:\n(\nREGION\n)",
}

var errPrefix = regexp.MustCompile(`^f\.req:([0-9]+):([0-9]+): `)

// FuzzParse checks that any text gives a File or errors, never a panic;
// that errors and positions point into the text; that a File without
// errors formats to text that parses back to it; and that checking and
// compiling it against a program does not panic.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Count(src, "\n") + 1
		file, err := Parse("f.req", []byte(src))
		if file == nil {
			t.Fatalf("Parse returned no File")
		}
		for _, e := range errStrings(err) {
			m := errPrefix.FindStringSubmatch(e)
			var line int
			if m != nil {
				fmt.Sscan(m[1], &line)
			}
			if m == nil || line < 1 || line > lines {
				t.Fatalf("bad error %q", e)
			}
		}
		forPositions(file, func(p Pos) {
			if p.File != "f.req" || p.Line < 1 || p.Line > lines || p.Col < 1 {
				t.Fatalf("bad position %v", p)
			}
		})
		if err != nil {
			return
		}
		out := Format(file)
		again, err := Parse("f.req", out)
		if err != nil {
			t.Fatalf("Format output does not parse: %v\n%s", err, out)
		}
		if d := cmp.Diff(file, again, ignorePos); d != "" {
			t.Fatalf("round trip differs (-parsed +reparsed):\n%s\nformatted:\n%s", d, out)
		}
		prog := testProg()
		Check(file, prog, false)
		Compile(file, prog, 4)
		Check(file, prog, true)
		if _, err := Compile(file, prog, 4); err != nil && !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("Compile after lenient Check: %v", err)
		}
	})
}

// forPositions calls fn for every Pos in v.
func forPositions(v any, fn func(Pos)) {
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			if p, ok := v.Interface().(Pos); ok {
				fn(p)
				return
			}
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(v))
}
