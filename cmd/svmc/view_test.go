package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/view"
)

var pageDataRE = regexp.MustCompile(`(?s)<script id="svmc-data" type="application/json">(.*?)</script>`)

// pageSource is the source view's part of a page's data (view/data.go).
type pageSource struct {
	Src []struct {
		F string
		T *string
		L [][]json.RawMessage
	}
}

// TestViewSource: svmc view --src on a stage-6 run of two loops over a
// shared array embeds the source, puts the page faults on the lines of the
// shared accesses (as many as the trace has), the loops' time, imbalance
// and barrier waiting on their directives' lines, and the report's finding
// on its line.
func TestViewSource(t *testing.T) {
	src, err := os.ReadFile("testdata/findings/mismatch/main.go")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeModule(t, map[string]string{"main.go": string(src)})
	tr := filepath.Join(dir, "t.sddf")
	if res := runSvmc(t, dir, "run", "-n", "2", "--stage", "6", "--trace", tr, "."); res.code != 0 || res.stdout != "2046\n" {
		t.Fatalf("run: exit %d, output %q\n%s", res.code, res.stdout, res.stderr)
	}
	out := filepath.Join(dir, "v.html")
	if res := runSvmc(t, dir, "view", "--src", ".", "-o", out, tr); res.code != 0 {
		t.Fatalf("view: exit %d\n%s", res.code, res.stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := pageDataRE.FindSubmatch(page)
	if m == nil {
		t.Fatal("no data in the page")
	}
	var data pageSource
	if err := json.Unmarshal(m[1], &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Src) != 1 || data.Src[0].F != "main.go" || data.Src[0].T == nil || *data.Src[0].T != string(src) {
		t.Fatalf("source view files: %+v; want main.go with its text", data.Src)
	}
	type line struct {
		time, imb, wait float64
		faults          int
		notes           [][2]string
	}
	lines := map[int]line{}
	for _, l := range data.Src[0].L {
		var n, faults int
		var tm, imb, wait float64
		var notes [][2]string
		for i, p := range []any{&n, &tm, nil, &imb, &wait, nil, nil, nil, &faults, nil, &notes} {
			if p != nil {
				if err := json.Unmarshal(l[i], p); err != nil {
					t.Fatalf("line entry %s: %v", l, err)
				}
			}
		}
		lines[n] = line{tm, imb, wait, faults, notes}
	}
	// Every serviced page fault of the trace is on a line of a shared
	// access: 19 and 23 in the loops, 26 after them.
	tl, err := view.BuildFile(tr, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	faults := 0
	for _, in := range tl.Instants {
		if in.Tag == trace.TagReadPageFaultServiced || in.Tag == trace.TagWritePageFaultServiced {
			faults++
		}
	}
	onLines := 0
	for n, l := range lines {
		if l.faults > 0 && n != 19 && n != 23 && n != 26 {
			t.Errorf("%d page faults on line %d, which has no shared access", l.faults, n)
		}
		onLines += l.faults
	}
	if faults == 0 || onLines != faults || lines[19].faults == 0 || lines[23].faults == 0 {
		t.Errorf("page faults on the lines: %d (line 19: %d, line 23: %d); want %d, some on both loops' lines", onLines, lines[19].faults, lines[23].faults, faults)
	}
	for _, n := range []int{17, 21} {
		if l := lines[n]; l.time <= 0 || l.wait <= 0 || l.imb < 0 || l.imb >= 1 {
			t.Errorf("pdo line %d: time %.3f µs, waiting %.3f µs, imbalance %.3f; want time and waiting", n, l.time, l.wait, l.imb)
		}
	}
	found := false
	for _, nt := range lines[21].notes {
		found = found || nt[0] == "finding" && strings.Contains(nt[1], "fetch")
	}
	if !found {
		t.Errorf("line 21 notes %q: want the distribution mismatch finding", lines[21].notes)
	}
	t.Logf("faults %d (line 19: %d, line 23: %d), line 21: %+v", faults, lines[19].faults, lines[23].faults, lines[21])

	// svmc report --format html is the same page with the report in a tab.
	rep := runSvmc(t, dir, "report", "--format", "html", "--src", ".", tr)
	if rep.code != 0 || !strings.Contains(rep.stdout, `<div id="report-body"><div class="svmc-report">`) || !strings.Contains(rep.stdout, `id="src-lines"`) ||
		!strings.Contains(rep.stdout, `"t":"// want kind=\"distribution mismatch\"`) || !strings.Contains(rep.stdout, `["finding","the owners of c's pages`) {
		t.Errorf("report --format html: exit %d, not the view's page with the report, the source and its findings\n%.2000s", rep.code, rep.stdout)
	}

	// --findings=false leaves the findings out; a --src that is no
	// directory is an error that says so.
	if res := runSvmc(t, dir, "view", "--findings=false", "-o", out, tr); res.code != 0 {
		t.Fatalf("view --findings=false: exit %d\n%s", res.code, res.stderr)
	}
	if page, _ := os.ReadFile(out); strings.Contains(string(page), `["finding",`) {
		t.Error("--findings=false: the page still holds findings")
	}
	if res := runSvmc(t, dir, "view", "--src", "main.go", "-o", out, tr); res.code == 0 || !strings.Contains(res.stderr, "--src: main.go is not a directory") {
		t.Errorf("view --src main.go: exit %d, %q; want an error naming the flag", res.code, res.stderr)
	}
}

// TestViewLOD: svmc view --lod on writes the summarised page of a binary
// trace (its data has the summaries and no interval); --lod with another
// word, and --serve of an ASCII trace, say what is wrong.
func TestViewLOD(t *testing.T) {
	dir := t.TempDir()
	tr, _ := filepath.Abs(filepath.Join("..", "..", "export", "testdata", "jacobi.sddf"))
	out := filepath.Join(dir, "j.html")
	res := runSvmc(t, dir, "view", "--lod", "on", "-o", out, tr)
	if res.code != 0 || !strings.Contains(res.stderr, "drawn from summaries") {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := pageDataRE.FindSubmatch(page)
	if m == nil {
		t.Fatal("no data in the page")
	}
	var d struct {
		IV  []json.RawMessage `json:"iv"`
		LOD struct {
			Buckets int `json:"buckets"`
			Lanes   []struct {
				Rows [][]int `json:"rows"`
			} `json:"lanes"`
		} `json:"lod"`
	}
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatal(err)
	}
	if len(d.IV) != 0 || d.LOD.Buckets != view.LODBuckets || len(d.LOD.Lanes) == 0 || len(d.LOD.Lanes[0].Rows) == 0 {
		t.Errorf("page data: %d intervals, %d buckets, %d lanes", len(d.IV), d.LOD.Buckets, len(d.LOD.Lanes))
	}
	if res := runSvmc(t, dir, "view", "--lod", "maybe", tr); res.code == 0 || !strings.Contains(res.stderr, "--lod maybe: want auto, on or off") {
		t.Errorf("--lod maybe: exit %d\n%s", res.code, res.stderr)
	}
	ascii := filepath.Join(dir, "j.txt")
	if res := runSvmc(t, dir, "trace", "convert", "--to", "ascii", tr, ascii); res.code != 0 {
		t.Fatalf("convert: %s", res.stderr)
	}
	if res := runSvmc(t, dir, "view", "--serve", "127.0.0.1:0", ascii); res.code == 0 || !strings.Contains(res.stderr, "--serve draws binary traces") {
		t.Errorf("--serve of an ASCII trace: exit %d\n%s", res.code, res.stderr)
	}
}
