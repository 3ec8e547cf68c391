package rtlib

import (
	"bytes"
	"io"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
)

// smallProgram is the "generated code" of a small program:
//
//	//svm:processors P(2)                       dir 1
//	//svm:template T(10)                        dir 2
//	//svm:distribute (block) onto P :: T        dir 3
//	//svm:trace_region r                        dir 4
//	{
//	   //svm:pdo loops(i) strategy(on_home(T(i)))   dir 5
//	   for i := 0; i <= 9; i++ { work() }
//	}
//	//svm:barrier                               dir 6
//	work2()  // opens user region dir 7 of sub 2 and returns out of it
func smallProgram(p *Proc) {
	P := p.Processors(nil, 1, 1, "P", ext(0, 1))
	T := p.Template(nil, 1, 2, "T", ext(0, 9))
	p.Distribute(1, 3, P, []Format{Block()}, T)
	p.RegionStart(1, 4, trace.RegionUser)
	p.PDO(1, 5, OnHome(T, LoopVar(0, 0)), []Range{{Lo: 0, Hi: 9, Step: 1}}, func(q *Proc, it *Iter) {
		q.Enter(2)
		for it.Next() {
		}
		q.Exit(2)
	})
	p.RegionStop(1, 4, trace.RegionUser)
	p.Barrier(1, 6)
	func() {
		p.Enter(2)
		defer p.Exit(2)
		p.RegionStart(2, 7, trace.RegionUser)
		// return out of the user region: Exit closes it
	}()
}

var smallWant = map[int][]string{
	0: {
		"trace-region-start(1,0,program)",
		"proc-arrangement(1)",
		"template-info(1)",
		"template-dist(1)",
		"trace-region-start(1,4,user)",
		"trace-region-start(1,5,pdo)",
		"pdo-info(1,5)",
		"aps-info",
		"trace-region-start(2,0,subroutine)",
		"trace-region-stop(2,0,subroutine)",
		"pdo-work",
		"wait-barrier-start(1,5)",
		"wait-barrier-stop(1,5)",
		"pdo-iteration-space(1,5)",
		"trace-region-stop(1,5,pdo)",
		"trace-region-stop(1,4,user)",
		"wait-barrier-start(1,6)",
		"wait-barrier-stop(1,6)",
		"trace-region-start(2,0,subroutine)",
		"trace-region-start(2,7,user)",
		"trace-region-stop(2,7,user)",
		"trace-region-stop(2,0,subroutine)",
		"trace-region-stop(1,0,program)",
	},
	1: {
		"template-dist(1)", // written by the leader, first in the file
		"trace-region-start(1,0,program)",
		"trace-region-start(1,5,pdo)",
		"trace-region-start(2,0,subroutine)",
		"trace-region-stop(2,0,subroutine)",
		"pdo-work",
		"wait-barrier-start(1,5)",
		"wait-barrier-stop(1,5)",
		"trace-region-stop(1,5,pdo)",
		"wait-barrier-start(1,6)",
		"wait-barrier-stop(1,6)",
		"trace-region-stop(1,0,program)",
	},
}

func stageOfName(name string) int {
	for _, d := range trace.Catalog {
		if d.Name == name {
			return trace.Stage(d.Tag)
		}
	}
	panic(name)
}

func nameOf(ev string) string {
	for i := range ev {
		if ev[i] == '(' {
			return ev[:i]
		}
	}
	return ev
}

func TestEventSequencesByStage(t *testing.T) {
	for _, f := range []trace.Format{trace.ASCII, trace.Binary} {
		for stage := 0; stage <= 3; stage++ {
			recs := traced(t, 2, stage, f, smallProgram)
			checkClocks(t, recs)
			nodes := byNode(recs)
			for node := 0; node < 2; node++ {
				var want []string
				for _, ev := range smallWant[node] {
					if stageOfName(nameOf(ev)) <= stage {
						want = append(want, ev)
					}
				}
				if got := evStrings(nodes[node]); !reflect.DeepEqual(got, want) {
					t.Errorf("%v stage %d node %d:\n got %q\nwant %q", f, stage, node, got, want)
				}
			}
			if len(nodes) > 2 {
				t.Errorf("records of nodes %v", nodes)
			}
		}
	}
}

func TestRecordFields(t *testing.T) {
	var buf bytes.Buffer
	prog := testProg()
	err := Run(prog, Params{NProcs: 2, Stage: 3, Trace: &buf, Format: trace.ASCII, Stderr: io.Discard}, smallProgram)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := trace.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	attrs := map[string]string{}
	for _, a := range rd.Attrs() {
		attrs[a.Key] = a.Value
	}
	wantAttrs := map[string]string{"svmc program info": prog.Info, "processors": "2", "stage": "3", "format version": "1",
		"cpus": strconv.Itoa(runtime.GOMAXPROCS(0))}
	if !reflect.DeepEqual(attrs, wantAttrs) {
		t.Errorf("attributes %v, want %v", attrs, wantAttrs)
	}
	recs := readTrace(t, buf.Bytes())
	type arr struct {
		dims, vals []int
	}
	find := func(name string, node int) *trace.Record {
		for _, r := range recs {
			if r.Desc.Name == name && r.Node() == node {
				return r
			}
		}
		t.Fatalf("no %s on node %d", name, node)
		return nil
	}
	get := func(r *trace.Record, field string) arr {
		d, v := r.IntArray(field)
		return arr{d, v}
	}
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	pa := find("proc-arrangement", 0)
	check("proc-arrangement id", pa.Int("proc arrangement id"), 1)
	check("proc-arrangement dims", pa.Int("number of dimensions"), 1)
	check("proc-arrangement shape", get(pa, "shape of dimensions"), arr{[]int{1, 2}, []int{0, 1}})
	check("proc-arrangement pids", get(pa, "pids"), arr{[]int{2}, []int{0, 1}})
	ti := find("template-info", 0)
	check("template-info", []int{ti.Int("template id"), ti.Int("subprogram number"), ti.Int("directive number"), ti.Int("number of dimensions")}, []int{1, 1, 2, 1})
	check("template shape", get(ti, "template shape"), arr{[]int{1, 2}, []int{0, 9}})
	check("template-dist node 0", get(find("template-dist", 0), "owned indices"), arr{[]int{1, 2}, []int{0, 4}})
	check("template-dist node 1", get(find("template-dist", 1), "owned indices"), arr{[]int{1, 2}, []int{5, 9}})
	pi := find("pdo-info", 0)
	check("pdo-info arrangement", pi.Int("proc arrangement id"), 1)
	check("pdo-info shape", get(pi, "proc arrangement shape"), arr{[]int{1, 2}, []int{0, 1}})
	check("pdo-info block cyclic", get(pi, "block cyclic length"), arr{[]int{0}, []int{}})
	check("pdo-info const", get(pi, "const template indices"), arr{[]int{0}, []int{}})
	if s := pi.Double("startup time microseconds"); s < 0 || s > 1e6 {
		t.Errorf("startup time %v", s)
	}
	check("aps-info", get(find("aps-info", 0), "pids"), arr{[]int{2}, []int{0, 1}})
	check("iteration space", get(find("pdo-iteration-space", 0), "iteration space"), arr{[]int{1, 9}, []int{0, 9, 1, 0, 9, 1, 0, 0, 0}})
}

func TestPDOInfoLoopLevelAndConst(t *testing.T) {
	recs := traced(t, 3, 2, trace.Binary, func(p *Proc) {
		P := p.Processors(nil, 1, 1, "P", ext(0, 2), ext(1, 1))
		p.PDO(1, 2, LoopLevel(P, Cyclic(2), Block()), []Range{{Lo: 0, Hi: 9, Step: 1}, {Lo: 3, Hi: 1, Step: -1}, {Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {})
		T := p.Template(nil, 1, 3, "T", ext(0, 9), ext(0, 9))
		p.Distribute(1, 4, P, []Format{Block(), Block()}, T)
		p.PDO(1, 5, OnHome(T, LoopVar(0, 0), ConstIndex(4)), []Range{{Lo: 0, Hi: 9, Step: 1}}, func(q *Proc, it *Iter) {})
		p.PDO(1, 6, DefaultSchedule(), []Range{{Lo: 0, Hi: 9, Step: 1}}, func(q *Proc, it *Iter) {})
	})
	var infos []*trace.Record
	for _, r := range recs {
		if r.Desc.Name == "pdo-info" {
			infos = append(infos, r)
		}
	}
	if len(infos) != 3 {
		t.Fatalf("%d pdo-info records", len(infos))
	}
	type row struct {
		id         int
		shape, bcl []int
		consts     []int
	}
	got := func(r *trace.Record) row {
		_, shape := r.IntArray("proc arrangement shape")
		_, bcl := r.IntArray("block cyclic length")
		_, c := r.IntArray("const template indices")
		return row{id: r.Int("proc arrangement id"), shape: shape, bcl: bcl, consts: c}
	}
	want := []row{
		{id: 1, shape: []int{0, 2, 1, 1}, bcl: []int{2, 0, -1}, consts: []int{}},
		{id: 1, shape: []int{0, 2, 1, 1}, bcl: []int{}, consts: []int{4}},
		{id: 0, shape: []int{0, 2}, bcl: []int{}, consts: []int{}},
	}
	for i, r := range infos {
		if g := got(r); !reflect.DeepEqual(g, want[i]) {
			t.Errorf("pdo-info %d: got %+v, want %+v", i, g, want[i])
		}
	}
	for _, r := range recs {
		if r.Desc.Name == "pdo-iteration-space" && r.Int("directive number") == 2 {
			_, v := r.IntArray("iteration space")
			if want := []int{0, 9, 1, 0, 9, 1, 0, 0, 0, 3, 1, -1, 3, 1, -1, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0}; !reflect.DeepEqual(v, want) {
				t.Errorf("iteration space %v, want %v", v, want)
			}
		}
	}
}

// ownedRows returns the template-dist boxes of template id per node.
func ownedRows(t *testing.T, recs []*trace.Record, id int) map[int][]int {
	m := map[int][]int{}
	for _, r := range recs {
		if r.Desc.Name == "template-dist" && r.Int("template id") == id {
			dims, v := r.IntArray("owned indices")
			if len(v) > 0 && dims[1] != 4 && dims[1] != 2 {
				t.Errorf("owned indices dims %v", dims)
			}
			m[r.Node()] = append([]int{}, v...)
		}
	}
	return m
}

func TestTemplateDistBoxes(t *testing.T) {
	dist66 := func(p *Proc) {
		P := p.Processors(nil, 1, 1, "P", ext(0, 1), ext(0, 1))
		T1 := p.Template(nil, 1, 2, "T1", ext(0, 5), ext(0, 5))
		p.Distribute(1, 3, P, []Format{Block(), Block()}, T1)
	}
	cases := []struct {
		n    int
		want map[int][]int
	}{
		{4, map[int][]int{0: {0, 2, 0, 2}, 1: {3, 5, 0, 2}, 2: {0, 2, 3, 5}, 3: {3, 5, 3, 5}}},
		{2, map[int][]int{0: {0, 2, 0, 2, 0, 2, 3, 5}, 1: {3, 5, 0, 2, 3, 5, 3, 5}}},
		{1, map[int][]int{0: {0, 2, 0, 2, 3, 5, 0, 2, 0, 2, 3, 5, 3, 5, 3, 5}}},
		{5, map[int][]int{0: {0, 2, 0, 2}, 1: {3, 5, 0, 2}, 2: {0, 2, 3, 5}, 3: {3, 5, 3, 5}, 4: {}}},
	}
	for _, c := range cases {
		recs := traced(t, c.n, 2, trace.ASCII, dist66)
		if got := ownedRows(t, recs, 1); !reflect.DeepEqual(got, c.want) {
			t.Errorf("T1(6,6) block,block on P(2,2), N=%d:\n got %v\nwant %v", c.n, got, c.want)
		}
	}
	// cyclic gives a row per block; '*' spans the extent; bounds are the
	// template's own.
	recs := traced(t, 2, 2, trace.Binary, func(p *Proc) {
		T := p.Template(nil, 1, 2, "T", ext(1, 10), ext(-1, 1))
		p.Distribute(1, 3, nil, []Format{Cyclic(2), Star()}, T)
		U := p.Template(nil, 1, 4, "U", ext(0, 9))
		p.Distribute(1, 5, nil, []Format{Indirect([]int{0, 0, 1, 0, 1, 1, 1, 0, 0, 0})}, U)
		p.Distribute(1, 6, nil, []Format{GeneralBlock([]int{0, 10})}, U)
	})
	want := map[int][]int{0: {1, 2, -1, 1, 5, 6, -1, 1, 9, 10, -1, 1}, 1: {3, 4, -1, 1, 7, 8, -1, 1}}
	if got := ownedRows(t, recs, 1); !reflect.DeepEqual(got, want) {
		t.Errorf("cyclic(2),*: got %v, want %v", got, want)
	}
	var u []map[int][]int
	for _, r := range recs {
		if r.Desc.Name == "template-dist" && r.Int("template id") == 2 && r.Node() == 0 {
			_, v := r.IntArray("owned indices")
			u = append(u, map[int][]int{0: v})
		}
	}
	wantU := []map[int][]int{{0: {0, 1, 3, 3, 7, 9}}, {0: {}}}
	if !reflect.DeepEqual(u, wantU) {
		t.Errorf("indirect, general_block node 0: got %v, want %v", u, wantU)
	}
}

func TestTemplateLifeCycleRecords(t *testing.T) {
	var ids []int
	recs := traced(t, 2, 2, trace.ASCII, func(p *Proc) {
		A := p.Template(nil, 1, 1, "A", ext(0, 3))
		T := p.CreatableTemplate(nil, 1, 2, "T", 2)
		if T.Defined() || T.Size() != 0 {
			t.Errorf("creatable template defined before create")
		}
		p.Create(T, 1, 3, ext(0, 4), ext(1, 2))
		if !T.Defined() || T.Size() != 10 || T.Extent(1) != ext(1, 2) || T.Rank() != 2 {
			t.Errorf("created template %v size %d", T, T.Size())
		}
		p.Distribute(1, 4, nil, []Format{Block(), Star()}, T)
		p.Undef(T, 1, 5)
		if T.Defined() || T.Distributed() {
			t.Errorf("undefined template still defined")
		}
		p.Create(T, 1, 6, ext(0, 1), ext(0, 1))
		p.Destroy(T, 1, 7)
		B := p.Template(A, 2, 1, "B", ext(1, 4)) // passed in: same template
		if B != A {
			t.Errorf("template argument not returned")
		}
		Q := p.Processors(nil, 1, 8, "Q", ext(0, 1))
		Q2 := p.Processors(Q, 2, 2, "Q", ext(1, 2))
		if Q2 != Q || Q.ID() != 1 || Q.Size() != 2 || !reflect.DeepEqual(Q.Pids(), []int{0, 1}) {
			t.Errorf("arrangement argument %v", Q2)
		}
		ids = []int{A.ID(), T.ID()}
	})
	if !reflect.DeepEqual(ids, []int{1, 2}) {
		t.Errorf("template ids %v, want [1 2]", ids)
	}
	// The creatable template's TEMPLATE directive writes template-info too
	// (seed 002: TEMPLATE writes template-info), with its rank and no shape.
	want := []string{"template-info(1)", "template-info(2)", "template-info(2)", "template-dist(2)", "undef-template(2)",
		"template-info(2)", "destroy-template(2)", "template-info(1)", "proc-arrangement(1)", "proc-arrangement(1)"}
	var got []string
	for _, r := range byNode(recs)[0] {
		if s := evString(r); s[:6] == "templa" || s[:6] == "undef-" || s[:6] == "destro" || s[:6] == "proc-a" {
			got = append(got, s)
		}
		if r.Desc.Tag == trace.TagTemplateInfo && r.Int("directive number") == 2 {
			if dims, shape := r.IntArray("template shape"); r.Int("number of dimensions") != 2 || len(shape) != 0 || dims[0] != 0 {
				t.Errorf("template-info of the creatable TEMPLATE: rank %d, shape %v %v", r.Int("number of dimensions"), dims, shape)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestBufferOverflow(t *testing.T) {
	var buf bytes.Buffer
	const n, regions = 2, 300
	err := Run(testProg(), Params{NProcs: n, Stage: 1, Trace: &buf, BufSize: 512, Stderr: io.Discard}, func(p *Proc) {
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {
			for range regions {
				q.RegionStart(1, 2, trace.RegionUser)
				q.RegionStop(1, 2, trace.RegionUser)
			}
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	recs := readTrace(t, buf.Bytes())
	checkClocks(t, recs)
	for node, rs := range byNode(recs) {
		var user, overflow, overhead int
		for i, r := range rs {
			switch r.Desc.Name {
			case "trace-region-start", "trace-region-stop":
				if r.Int("trace region type") == trace.RegionUser {
					user++
				}
			case "kernel-trace-buffer-overflow":
				overflow++
				if i+1 >= len(rs) || rs[i+1].Desc.Name != "trace-overhead" {
					t.Errorf("node %d: overflow not followed by trace-overhead", node)
				}
			case "trace-overhead":
				overhead++
				if r.Int("overhead type") != trace.OverheadFlush || r.Double("duration microseconds") < 0 {
					t.Errorf("node %d: overhead %v", node, r.Values)
				}
			}
		}
		if user != 2*regions {
			t.Errorf("node %d: %d user region records, want %d", node, user, 2*regions)
		}
		if overflow < 10 || overflow != overhead {
			t.Errorf("node %d: %d overflows, %d overheads", node, overflow, overhead)
		}
	}
}

func TestBarrierFromExclusive(t *testing.T) {
	recs := traced(t, 3, 3, trace.Binary, func(p *Proc) {
		p.Barrier(1, 2)
		p.Barrier(1, 3)
	})
	for node := 0; node < 3; node++ {
		want := []string{"trace-region-start(1,0,program)", "wait-barrier-start(1,2)", "wait-barrier-stop(1,2)",
			"wait-barrier-start(1,3)", "wait-barrier-stop(1,3)", "trace-region-stop(1,0,program)"}
		if got := evStrings(byNode(recs)[node]); !reflect.DeepEqual(got, want) {
			t.Errorf("node %d: got %q", node, got)
		}
	}
}

func TestVariableMapping(t *testing.T) {
	recs := traced(t, 1, 2, trace.ASCII, func(p *Proc) {
		p.Shared(1, 1, SharedVar{Num: 1, Addr: 0x12345678_9abcdef0}, SharedVar{Num: 2, Addr: 0x10})
	})
	for _, r := range recs {
		if r.Desc.Name == "variable-mapping" {
			d, v := r.IntArray("variable address")
			want := []int{1, 0x12345678, int(int32(-0x65432110)), 2, 0, 0x10}
			if !reflect.DeepEqual(d, []int{2, 3}) || !reflect.DeepEqual(v, want) || r.Int("subprogram number") != 1 {
				t.Errorf("variable-mapping %v %v, want %v", d, v, want)
			}
			return
		}
	}
	t.Error("no variable-mapping")
}

func TestWrapInfoMessage(t *testing.T) {
	var msg bytes.Buffer
	err := Run(testProg(), Params{NProcs: 2, Stderr: &msg}, func(p *Proc) {
		for range 3 {
			p.Processors(nil, 1, 1, "P", ext(0, 1), ext(0, 1))
		}
		p.Processors(nil, 1, 2, "Q", ext(0, 1))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "svmc: main.go:10:1: processor arrangement P(0:1,0:1) has 4 elements for 2 processors; mapped in column-major order, wrapping\n"
	if msg.String() != want {
		t.Errorf("got %q, want %q", msg.String(), want)
	}
}

func TestCurrentAndDetached(t *testing.T) {
	const n = 3
	var detachedIters, detachedCalls int
	var same [n]bool
	var detachedID, detachedN int
	runN(t, n, func(p *Proc) {
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: n - 1, Step: 1}}, func(q *Proc, it *Iter) {
			same[q.ID()] = Current() == q
		})
		done := make(chan struct{})
		go func() {
			defer close(done)
			d := Current()
			detachedID, detachedN = d.ID(), d.NProcs()
			d.Barrier(1, 2) // returns at once
			T := d.Template(nil, 1, 3, "T", ext(0, 9))
			d.Distribute(1, 4, nil, []Format{Block()}, T)
			d.PDO(1, 5, OnHome(T, LoopVar(0, 0)), []Range{{Lo: 0, Hi: 9, Step: 1}}, func(q *Proc, it *Iter) {
				detachedCalls++
				for it.Next() {
					detachedIters++
				}
			})
		}()
		<-done
	})
	for i, s := range same {
		if !s {
			t.Errorf("Current() on processor %d is not its Proc", i)
		}
	}
	if detachedIters != 10 || detachedCalls != 1 || detachedID != 0 || detachedN != n {
		t.Errorf("detached: %d calls, %d iterations, id %d, nprocs %d", detachedCalls, detachedIters, detachedID, detachedN)
	}
	if d := Current(); !d.detached || d.NProcs() < 1 {
		t.Errorf("Current outside a run: %+v", d)
	}
}

func TestRunParamErrors(t *testing.T) {
	if err := Run(nil, Params{NProcs: 0}, func(p *Proc) {}); err == nil {
		t.Error("0 processors accepted")
	}
	if err := Run(nil, Params{NProcs: 1, Stage: 7}, func(p *Proc) {}); err == nil {
		t.Error("stage 7 accepted")
	}
	if err := Run(nil, Params{NProcs: 2}, func(p *Proc) {
		if p.NProcs() != 2 || p.ID() != 0 {
			t.Errorf("leader %d of %d", p.ID(), p.NProcs())
		}
	}); err != nil {
		t.Error(err)
	}
}

func TestManyProcessors(t *testing.T) {
	// More processors than CPUs: the bounded spin falls back to blocking.
	const n = 16
	var sum [n]int
	runN(t, n, func(p *Proc) {
		for k := range 50 {
			p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 99, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					sum[q.ID()] += it.Index(0)
				}
			})
			if k%10 == 0 {
				p.Barrier(1, 2)
			}
		}
	})
	total := 0
	for _, s := range sum {
		total += s
	}
	if total != 50*4950 {
		t.Errorf("sum %d, want %d", total, 50*4950)
	}
}

func TestGoexitInBody(t *testing.T) {
	err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard}, func(p *Proc) {
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {
			if q.ID() == 1 {
				runtime.Goexit()
			}
		})
	})
	// Said where the body left, not as the processor's goroutine's end:
	// the construct could not end without it.
	if err == nil || !strings.HasPrefix(err.Error(), "processor 1: an iteration or section left its construct by runtime.Goexit") {
		t.Errorf("got %v", err)
	}
}

// TestReplicatedPDOInfoFirst: a pdo reached in replicated mode writes its
// pdo-info before any member starts its iterations (seed 002 Table 1:
// pdo-info at the PDO directive), even when the leader arrives last and
// the schedule lets every member set up its own share; the loop's results
// stay right.
func TestReplicatedPDOInfoFirst(t *testing.T) {
	for _, s := range []struct {
		name  string
		sched Schedule
	}{{"default", DefaultSchedule()}, {"dynamic", Dynamic(2)}} {
		t.Run(s.name, func(t *testing.T) {
			const n = 3
			var sum atomic.Int64
			recs := traced(t, n, 2, trace.Binary, func(p *Proc) {
				p.Replicated(1, 1, func(q *Proc) {
					if q.ID() == 0 {
						time.Sleep(20 * time.Millisecond)
					}
					q.PDO(1, 2, s.sched, []Range{{Lo: 1, Hi: 100, Step: 1}}, func(_ *Proc, it *Iter) {
						for it.Next() {
							sum.Add(int64(it.Index(0)))
						}
					})
				})
			})
			if sum.Load() != 5050 {
				t.Errorf("sum %d, want 5050", sum.Load())
			}
			info := -1.0
			for _, r := range recs {
				if r.Desc.Name == "pdo-info" {
					info = r.Clock()
				}
			}
			if info < 0 {
				t.Fatal("no pdo-info")
			}
			starts := 0
			for _, r := range recs {
				if r.Desc.Name == "trace-region-start" && r.Int("trace region type") == trace.RegionPDO {
					starts++
					// Table 1: the leader's own trace-region-start comes first.
					if r.Node() != 0 && r.Clock() < info {
						t.Errorf("processor %d starts the pdo at %.1f us, before its pdo-info at %.1f us", r.Node(), r.Clock(), info)
					}
				}
			}
			if starts != n {
				t.Errorf("%d pdo region starts, want %d", starts, n)
			}
		})
	}
}

// TestTemplateDistAlternates: a template redistributed back and forth
// (block, cyclic, block, ...: its owned boxes are reused from the last
// distributions) writes each distribution's own boxes, also for two
// indirect distributions from one owner slice changed in between, and in
// a section, whose processors are fewer (its leader writes its own part
// of the same distribution onto P).
func TestTemplateDistAlternates(t *testing.T) {
	recs := traced(t, 2, 2, trace.Binary, func(p *Proc) {
		T := p.Template(nil, 1, 1, "T", ext(0, 9))
		owner := []int{0, 0, 1, 1, 0, 0, 1, 1, 0, 0}
		p.Distribute(1, 2, nil, []Format{Block()}, T)
		p.Distribute(1, 3, nil, []Format{Cyclic(1)}, T)
		p.Distribute(1, 2, nil, []Format{Block()}, T)
		p.Distribute(1, 3, nil, []Format{Cyclic(1)}, T)
		p.Distribute(1, 4, nil, []Format{Indirect(owner)}, T)
		owner[0], owner[9] = 1, 1
		p.Distribute(1, 4, nil, []Format{Indirect(owner)}, T)
		P := p.Processors(nil, 1, 8, "P", ext(0, 1))
		p.Distribute(1, 2, P, []Format{Block()}, T)
		p.PSection(1, 5, []Section{{Dir: 6, Body: func(q *Proc) {}}, {Dir: 7, Body: func(q *Proc) {
			q.Distribute(1, 2, P, []Format{Block()}, T)
		}}})
	})
	var got [2][][]int
	for _, r := range recs {
		if r.Desc.Name == "template-dist" && r.Int("template id") == 1 {
			_, v := r.IntArray("owned indices")
			got[r.Node()] = append(got[r.Node()], append([]int{}, v...))
		}
	}
	want := [2][][]int{
		{{0, 4}, {0, 0, 2, 2, 4, 4, 6, 6, 8, 8}, {0, 4}, {0, 0, 2, 2, 4, 4, 6, 6, 8, 8}, {0, 1, 4, 5, 8, 9}, {1, 1, 4, 5, 8, 8}, {0, 4}},
		{{5, 9}, {1, 1, 3, 3, 5, 5, 7, 7, 9, 9}, {5, 9}, {1, 1, 3, 3, 5, 5, 7, 7, 9, 9}, {2, 3, 6, 7}, {0, 0, 2, 3, 6, 7, 9, 9}, {5, 9}, {5, 9}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("template-dist per node:\n got %v\nwant %v", got, want)
	}
}
