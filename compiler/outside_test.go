package compiler

import (
	"fmt"
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

// TestMethodIntoSharedField: built for ranks, a pdo that calls a method
// whose only writes through its receiver are elements of a field every
// place gives shared storage (g.set writing g.cells, shared where newGrid
// makes it) is not warned of: those writes travel. The same method on a
// type whose constructor keeps the storage private is.
func TestMethodIntoSharedField(t *testing.T) {
	got := rankDiags(t, `package main

type grid struct {
	w     int
	cells []float64
}

func newGrid(w, h int) *grid {
	cells := make([]float64, w*h)
	//svm:shared cells
	return &grid{w: w, cells: cells}
}

func (g *grid) set(x, y int, v float64) { g.cells[y*g.w+x] = v }

func (g *grid) fill(v float64) {
	for i := range g.cells {
		g.set(i%g.w, i/g.w, v)
	}
}

type plain struct{ vals []float64 }

func (q *plain) put(i int, v float64) { q.vals[i] = v }

func main() {
	g := newGrid(4, 4)
	//svm:pdo loops(y)
	for y := 0; y < 4; y++ {
		for x := 0; x < 4; x++ {
			g.set(x, y, 1)
		}
	}
	h := newGrid(2, 2)
	//svm:pdo loops(k)
	for k := 0; k < 2; k++ {
		h.fill(2)
	}
	q := &plain{vals: make([]float64, 4)}
	//svm:pdo loops(i)
	for i := 0; i < 4; i++ {
		q.put(i, 3)
	}
}
`, func(d Diagnostic) string {
		if strings.Contains(d.Msg, "is private to each rank") {
			return fmt.Sprintf("%d %s", d.Pos.Line, strings.Fields(d.Msg)[0])
		}
		return ""
	})
	if want := "42 q"; strings.Join(got[true], ", ") != want {
		t.Errorf("built for ranks %v, want %s", got[true], want)
	}
}

// TestSwappedSharedFields: a stencil's two buffers, both made shared and
// swapped after each sweep (g.cur, g.next = g.next, g.cur), are shared
// storage wherever they are written (the swap gave them "storage that is
// not shared" before); with only one of them made shared, the other is
// still warned of.
func TestSwappedSharedFields(t *testing.T) {
	prog := `package main

type grid struct {
	n         int
	cur, next []float64
}

func newGrid(n int) *grid {
	cur, next := make([]float64, n), make([]float64, n)
	//svm:shared SHARED
	return &grid{n: n, cur: cur, next: next}
}

func (g *grid) step() {
	//svm:pdo loops(i)
	for i := 1; i < g.n-1; i++ {
		g.next[i] = (g.cur[i-1] + g.cur[i+1]) / 2
	}
	g.cur, g.next = g.next, g.cur
}

func main() {
	g := newGrid(16)
	for range 4 {
		g.step()
	}
}
`
	for shared, want := range map[string]string{"cur, next": "", "cur": "17 g"} {
		got := rankDiags(t, strings.Replace(prog, "SHARED", shared, 1), func(d Diagnostic) string {
			if strings.Contains(d.Msg, "is private to each rank") {
				return fmt.Sprintf("%d %s", d.Pos.Line, strings.Fields(d.Msg)[0])
			}
			return ""
		})
		if strings.Join(got[true], ", ") != want {
			t.Errorf("//svm:shared %s: built for ranks %v, want %q", shared, got[true], want)
		}
	}
}
