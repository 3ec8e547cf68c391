// Package golden holds svmc's end-to-end golden tests: for each case, the
// instrumented code and program information file that `svmc compile` writes,
// and the canonical per-processor event sequences of runs on 1, 2 and 4
// processors (timestamps and durations masked). Every golden output is built
// and run. Rewrite the files with
//
//	go test ./golden -update
//
// and read the diff before committing it.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/svmc/svmc/codegen"
	"github.com/svmc/svmc/compiler"
	"github.com/svmc/svmc/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// A case compiles the package in dir; its golden files live in want.
type goldenCase struct {
	name string
	dir  string // input package, relative to this directory
	args []string
	// dynamic masks the iteration and chunk counts of pdo-work: under dynamic
	// scheduling they change from run to run.
	dynamic bool
	// stage is the stage of the runs (3 when 0); stagesN2 are more stages
	// run on 2 processors (trace-n2-s<stage>.txt): what each stage adds.
	stage    int
	stagesN2 []int
	// pageSummary lists the page records of all processors by name only,
	// once each, at the end: where a program's arrays fall on pages
	// depends on the heap (rows allocated one by one), and with it which
	// processor faults where; what each stage adds is stable.
	pageSummary bool
	// recorded are the templates that record a dynamic schedule
	// (semi-dynamic pdo): each processor writes its own template-dist of
	// them at the end of the PDO, so they stay in its sequence, their
	// owned indices masked (they change from run to run).
	recorded []int
}

var cases = []goldenCase{
	{name: "example31", dir: "../examples/example31", stage: 6, stagesN2: []int{4, 5}, pageSummary: true},
	{name: "jacobi", dir: "../examples/jacobi", args: []string{"-n", "12", "-iters", "3"}, stage: 6, stagesN2: []int{4, 5}, pageSummary: true},
	{name: "distributions", dir: "testdata/distributions"},
	{name: "regions", dir: "testdata/regions"},
	{name: "subprograms", dir: "testdata/subprograms"},
	{name: "loops", dir: "testdata/loops"},
	{name: "sync", dir: "testdata/sync"},
	{name: "dynamic", dir: "testdata/dynamic", dynamic: true},
	{name: "messages", dir: "testdata/messages"},
	{name: "svm", dir: "testdata/svm", stage: 6, stagesN2: []int{4, 5}},
	{name: "table1", dir: "testdata/table1", dynamic: true, recorded: []int{1}},
}

var procCounts = []int{1, 2, 4}

func TestGolden(t *testing.T) {
	runtimeInputs()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := filepath.Join("testdata", c.name, "want")
			p, err := compiler.Compile(compiler.Config{Dir: c.dir, Pattern: "."})
			if err != nil {
				t.Fatalf("compile %s:\n%v", c.dir, err)
			}
			out, err := codegen.Generate(p, want, []string{"svmc", "compile", "-o", "want", "."})
			if err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			for name, data := range out.Files {
				files[name] = data
			}
			// The serial run of the plain Go program is the reference output.
			serial := run(t, exec.Command("go", append([]string{"run", "."}, c.args...)...), c.dir, nil)
			files["stdout.txt"] = serial
			exe := buildWant(t, c, out)
			type runAt struct{ n, stage int }
			var runs []runAt
			for _, n := range procCounts {
				runs = append(runs, runAt{n, max(c.stage, 3)})
			}
			for _, st := range c.stagesN2 {
				runs = append(runs, runAt{2, st})
			}
			for _, ra := range runs {
				tr := filepath.Join(t.TempDir(), "trace.sddf")
				stdout := run(t, exec.Command(exe, c.args...), "", []string{
					"SVMC_NPROCS=" + strconv.Itoa(ra.n), "SVMC_TRACE=" + tr, "SVMC_FORMAT=ascii", "SVMC_STAGE=" + strconv.Itoa(ra.stage)})
				if !bytes.Equal(stdout, serial) {
					t.Errorf("-n %d prints\n%s\nbut the serial program prints\n%s", ra.n, stdout, serial)
				}
				name := fmt.Sprintf("trace-n%d.txt", ra.n)
				if ra.stage != max(c.stage, 3) {
					name = fmt.Sprintf("trace-n%d-s%d.txt", ra.n, ra.stage)
				}
				files[name] = canonical(t, tr, c.dynamic, c.pageSummary, c.recorded)
			}
			compare(t, want, files)
		})
	}
}

// buildWant builds the generated package. It is built from a scratch copy
// so that an out-of-date want directory cannot hide a build failure.
func buildWant(t *testing.T, c goldenCase, out *codegen.Output) string {
	t.Helper()
	// A directory of its own inside the module (the package must be in it
	// to import the runtime), at the depth of want so that the //line
	// names resolve alike; unique, so that runs cannot collide.
	dir, err := os.MkdirTemp(filepath.Join("testdata", c.name), "build-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for name, data := range out.Files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(t.TempDir(), "prog")
	run(t, exec.Command("go", "build", "-o", exe, "./"+filepath.ToSlash(dir)), "", nil)
	return exe
}

func run(t *testing.T, cmd *exec.Cmd, dir string, env []string) []byte {
	t.Helper()
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// canonical reads a trace and writes each processor's records in order,
// one per line, with every double (clocks, durations) masked.
func canonical(t *testing.T, path string, dynamic, pageSummary bool, recorded []int) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	// A processor's own records are in the order it wrote them. The
	// template-dist records a leader writes for every processor of its APS
	// sit in the leader's buffer; they are listed apart, so the order of
	// two goroutines' clocks does not make the file flaky.
	own, onBehalf := map[int][]string{}, map[int][]string{}
	pages := map[string]bool{}
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if pageSummary && pageRecord(rec.Desc.Tag) {
			pages[rec.Desc.Name] = true
			continue
		}
		ownDist := rec.Desc.Name == "template-dist" && slices.Contains(recorded, rec.Int("template id"))
		var b strings.Builder
		b.WriteString(rec.Desc.Name)
		for i, f := range rec.Desc.Fields {
			if i < 2 {
				continue // node id and clock
			}
			v := rec.Values[i]
			fmt.Fprintf(&b, " %s=", strings.ReplaceAll(f.Name, " ", "_"))
			switch {
			case f.Type == trace.Double, dynamic && rec.Desc.Name == "pdo-work" && (f.Name == "iterations" || f.Name == "chunks"),
				ownDist && f.Name == "owned indices":
				b.WriteString("*")
			case rec.Desc.Name == "variable-mapping" && f.Dims == 2 && len(v.Dims) == 2:
				// Addresses change from run to run: keep the variable numbers.
				var nums []int
				for r := 0; r < v.Dims[0]; r++ {
					nums = append(nums, v.Ints[r*v.Dims[1]])
				}
				fmt.Fprintf(&b, "numbers%v", nums)
			case rec.Desc.Name == "wait-lock-start" && f.Dims == 2 && len(v.Dims) == 2 && v.Dims[1] == 4:
				// Rows [start_hi, start_lo, end_hi, end_lo]: keep the sizes.
				var sizes []int
				for r := 0; r < v.Dims[0]; r++ {
					row := v.Ints[4*r : 4*r+4]
					sizes = append(sizes, (row[2]-row[0])<<32+row[3]-row[1]+1)
				}
				fmt.Fprintf(&b, "sizes%v", sizes)
			case f.Type == trace.Char:
				fmt.Fprintf(&b, "%q", v.Str)
			case strings.HasSuffix(f.Name, "buffer address") && len(v.Ints) == 4:
				// [start_hi, start_lo, end_hi, end_lo]: keep the size.
				fmt.Fprintf(&b, "size %d", (v.Ints[2]-v.Ints[0])<<32+v.Ints[3]-v.Ints[1]+1)
			case strings.HasSuffix(f.Name, "address") && f.Name != "instruction address" && f.Dims == 0:
				b.WriteString("*") // page records: addresses change from run to run
			case f.Dims > 0:
				fmt.Fprintf(&b, "%v%v", v.Dims, v.Ints)
			default:
				b.WriteString(strconv.Itoa(v.Int))
			}
		}
		node := rec.Values[0].Int
		if rec.Desc.Name == "template-dist" && !ownDist {
			onBehalf[node] = append(onBehalf[node], b.String())
		} else {
			own[node] = append(own[node], b.String())
		}
	}
	var nodes []int
	for n := range own {
		nodes = append(nodes, n)
	}
	sort.Ints(nodes)
	var out bytes.Buffer
	for _, n := range nodes {
		fmt.Fprintf(&out, "== node %d\n", n)
		for _, l := range own[n] {
			out.WriteString(l + "\n")
		}
		if len(onBehalf[n]) > 0 {
			fmt.Fprintf(&out, "== node %d: template-dist written by the APS leader\n", n)
			for _, l := range onBehalf[n] {
				out.WriteString(l + "\n")
			}
		}
	}
	if len(pages) > 0 {
		var names []string
		for name := range pages {
			names = append(names, name)
		}
		sort.Strings(names)
		fmt.Fprintf(&out, "== page records of all processors (names only)\n%s\n", strings.Join(names, "\n"))
	}
	return out.Bytes()
}

// compare checks got against the files in dir, or rewrites them.
func compare(t *testing.T, dir string, got map[string][]byte) {
	t.Helper()
	if *update {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range got {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("no golden files (run go test ./golden -update): %v", err)
	}
	for _, e := range entries {
		if _, ok := got[e.Name()]; !ok {
			t.Errorf("%s/%s is no longer produced", dir, e.Name())
		}
	}
	for name, data := range got {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s/%s: missing (run go test ./golden -update)", dir, name)
			continue
		}
		if d := cmp.Diff(string(want), string(data)); d != "" {
			t.Errorf("%s/%s differs (-want +got):\n%s", dir, name, d)
		}
	}
}

// pageRecord reports whether tag is a record of the SVM layer whose values
// depend on where the arrays fall on pages.
func pageRecord(tag trace.Tag) bool {
	return tag >= trace.TagReadPageFaultSum && tag <= trace.TagPageOut || tag == trace.TagSegmentVariable ||
		tag == trace.TagSharedSegmentAddress || tag == trace.TagSVMOverhead || tag == trace.TagCoherenceSwitch || tag == trace.TagPrefetch
}
