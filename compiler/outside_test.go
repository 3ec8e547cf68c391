package compiler

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFieldsSetOutside: built for ranks, a library whose constructor gives
// an exported field shared storage and whose pdo writes through it is not
// warned of when no other package of the program sets the field (Pix),
// nor when main sets it from a variable it shares (Data); where main sets
// it with storage of its own (Cells), the warning names main's line. The
// library compiled alone still counts "other packages" as unknown.
func TestFieldsSetOutside(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/outside\n\ngo 1.24\n",
		"img/img.go": `package img

type Image struct{ Pix []float64 }
type Grid struct{ Cells []float64 }
type Buf struct{ Data []float64 }

func New(n int) *Image {
	pix := make([]float64, n)
	//svm:shared pix
	return &Image{Pix: pix}
}

func NewGrid(n int) *Grid {
	cells := make([]float64, n)
	//svm:shared cells
	return &Grid{Cells: cells}
}

func NewBuf(n int) Buf {
	data := make([]float64, n)
	//svm:shared data
	return Buf{Data: data}
}

func Double(src *Image) *Image {
	dst := New(len(src.Pix))
	//svm:pdo loops(i)
	for i := range src.Pix {
		dst.Pix[i] = 2 * src.Pix[i]
	}
	return dst
}

func (g *Grid) Fill(v float64) {
	cur := g
	//svm:pdo loops(i)
	for i := range cur.Cells {
		cur.Cells[i] = v
	}
}

func (b Buf) Fill(v float64) {
	out := b
	//svm:pdo loops(i)
	for i := range out.Data {
		out.Data[i] = v
	}
}
`,
		"main.go": `package main

import (
	"fmt"

	"example.com/outside/img"
)

func main() {
	m := img.Double(img.New(4))
	g := img.NewGrid(4)
	g.Cells = make([]float64, 8)
	g.Fill(1)
	data := make([]float64, 4)
	//svm:shared data
	b := img.Buf{Data: data}
	b.Fill(2)
	fmt.Println(m.Pix, g.Cells, b.Data)
}
`,
	}
	for name, text := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	private := func(ds Diagnostics) []string {
		var got []string
		for _, d := range ds {
			if strings.Contains(d.Msg, "is private to each rank") {
				got = append(got, d.Msg)
			}
		}
		return got
	}
	prog, err := CompileProgram(Config{Dir: dir, Pattern: ".", Ranks: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range prog.Packages() {
		got = append(got, private(p.Diags)...)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "g is private") || !strings.Contains(got[0], "its field Cells is given shared storage at line 16 but not at main.go:12") {
		t.Errorf("built as a program, the warnings are\n%s\nwant one, for Cells, naming main.go:12", strings.Join(got, "\n"))
	}
	lib, err := Compile(Config{Dir: filepath.Join(dir, "img"), Pattern: ".", Library: true, Ranks: true})
	if err != nil {
		t.Fatal(err)
	}
	alone := private(lib.Diags)
	if len(alone) != 3 || !slices.ContainsFunc(alone, func(m string) bool {
		return strings.Contains(m, "its field Pix is given shared storage at line 10, and other packages may give it other storage (the field is exported)")
	}) {
		t.Errorf("compiled alone, the warnings are\n%s\nwant three, Pix's saying other packages may set it", strings.Join(alone, "\n"))
	}
}
