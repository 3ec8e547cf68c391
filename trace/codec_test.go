package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// shape selects how fillRecord sizes the arrays.
type shape int

const (
	shapeFull  shape = iota // 1-D of 3, 2-D of 2 x 3
	shapeEmpty              // 1-D of 0, 2-D of 0 x 0
	shapeRows0              // 1-D of 1, 2-D of 0 x 4
	shapeCols0              // 1-D of 5, 2-D of 3 x 0
)

// fillRecord makes a record of d whose values depend on seed and s.
func fillRecord(d *Descriptor, seed int, s shape) *Record {
	r := NewRecord(d)
	for i, f := range d.Fields {
		v := &r.Values[i]
		base := seed*100 + i
		if f.Dims == 0 {
			switch f.Type {
			case Int:
				v.Int = base - 50 // some negative
				if i == 0 {
					v.Int = seed % 4 // node id
				}
			case Char:
				v.Int = (base * 37) % 256
			case Float:
				v.Double = float64(float32(base) / 3)
			case Double:
				v.Double = float64(base)/7 + 1e-9*float64(seed)
			}
			continue
		}
		var dims []int
		switch {
		case f.Dims == 1 && s == shapeFull:
			dims = []int{3}
		case f.Dims == 1 && s == shapeEmpty:
			dims = []int{0}
		case f.Dims == 1 && s == shapeRows0:
			dims = []int{1}
		case f.Dims == 1:
			dims = []int{5}
		case s == shapeFull:
			dims = []int{2, 3}
		case s == shapeEmpty:
			dims = []int{0, 0}
		case s == shapeRows0:
			dims = []int{0, 4}
		default:
			dims = []int{3, 0}
		}
		for len(dims) < f.Dims {
			dims = append(dims, 2)
		}
		n := 1
		for _, x := range dims {
			n *= x
		}
		v.Dims = dims
		switch f.Type {
		case Int:
			v.Ints = make([]int, n)
			for k := range v.Ints {
				v.Ints[k] = base*1000 + k*(1-2*(k%2))
			}
		case Float, Double:
			v.Doubles = make([]float64, n)
			for k := range v.Doubles {
				x := float64(base) + float64(k)/3
				if f.Type == Float {
					x = float64(float32(x))
				}
				v.Doubles[k] = x
			}
		case Char:
			b := make([]byte, n)
			for k := range b {
				const alphabet = "ab\"\\\n*/\x00\xff z"
				b[k] = alphabet[(base+k)%len(alphabet)]
			}
			v.Str = string(b)
		}
	}
	return r
}

// appendBuf writes r (a record of the catalogue) with Buf's methods, as the
// runtime does.
func appendBuf(t testing.TB, b *Buf, r *Record) {
	d := r.Desc
	if d.Fields[0].Type != Int || d.Fields[1].Type != Double {
		t.Fatalf("%s: does not start with node id and clock", d.Name)
	}
	b.Begin(d.Tag, r.Values[0].Int, r.Values[1].Double)
	for i := 2; i < len(d.Fields); i++ {
		f, v := d.Fields[i], r.Values[i]
		switch {
		case f.Dims == 0 && f.Type == Int:
			b.Int(v.Int)
		case f.Dims == 0 && f.Type == Double:
			b.Double(v.Double)
		case f.Dims == 1 && f.Type == Int:
			b.Ints(v.Ints)
		case f.Dims == 2 && f.Type == Int:
			b.IntRows(v.Dims[1], v.Ints)
		case f.Dims == 1 && f.Type == Char:
			b.Chars(v.Str)
		default:
			t.Fatalf("%s: field %q of type %s[%d] has no Buf method", d.Name, f.Name, f.Type, f.Dims)
		}
	}
	b.End()
}

// catalogRecords is one record of every catalogue descriptor per shape.
func catalogRecords() []*Record {
	var recs []*Record
	seed := 0
	for _, s := range []shape{shapeFull, shapeEmpty, shapeRows0, shapeCols0} {
		for _, d := range Catalog {
			seed++
			recs = append(recs, fillRecord(d, seed, s))
		}
	}
	return recs
}

// IntRows cannot express a 0 x 4 array with an empty slice... it can: cols 4.
// But a 3 x 0 array is written by IntRows(0, nil) as 0 x 0, so Buf records
// use shapes whose 2-D arrays have cols > 0 or are 0 x 0.
func bufRecords() []*Record {
	var recs []*Record
	for _, r := range catalogRecords() {
		ok := true
		for i, f := range r.Desc.Fields {
			if f.Dims == 2 && r.Values[i].Dims[1] == 0 && r.Values[i].Dims[0] != 0 {
				ok = false
			}
		}
		if ok {
			recs = append(recs, r)
		}
	}
	return recs
}

var cmpOpts = []cmp.Option{cmpopts.EquateEmpty(), cmpopts.EquateNaNs()}

func readAll(t testing.TB, data []byte) (*Reader, []*Record) {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var recs []*Record
	for r, err := range rd.All() {
		if err != nil {
			t.Fatalf("Next after %d records: %v", len(recs), err)
		}
		recs = append(recs, r)
	}
	return rd, recs
}

func writeRecords(t testing.TB, f Format, attrs []Attr, recs []*Record) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, f, attrs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			t.Fatalf("WriteRecord %s: %v", r.Desc.Name, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestBufRoundTrip(t *testing.T) {
	recs := bufRecords()
	if len(recs) < 2*len(Catalog) {
		t.Fatalf("only %d records", len(recs))
	}
	// Every descriptor with an array field must be covered by full and empty shapes.
	var b Buf
	for _, r := range recs {
		appendBuf(t, &b, r)
	}
	if b.Records() != len(recs) {
		t.Fatalf("Buf.Records = %d, want %d", b.Records(), len(recs))
	}
	for _, f := range []Format{Binary, ASCII} {
		t.Run(f.String(), func(t *testing.T) {
			var out bytes.Buffer
			w, err := NewWriter(&out, f, []Attr{{"program", "jacobi"}})
			if err != nil {
				t.Fatal(err)
			}
			// Two halves, to check that consecutive WriteBufs concatenate.
			var b1, b2 Buf
			for i, r := range recs {
				if i < len(recs)/2 {
					appendBuf(t, &b1, r)
				} else {
					appendBuf(t, &b2, r)
				}
			}
			if err := w.WriteBuf(&b1); err != nil {
				t.Fatal(err)
			}
			if err := w.WriteBuf(&b2); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			rd, got := readAll(t, out.Bytes())
			if rd.Format() != f {
				t.Errorf("format %v, want %v", rd.Format(), f)
			}
			if diff := cmp.Diff(recs, got, cmpOpts...); diff != "" {
				t.Errorf("records differ (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(Catalog, rd.Descriptors()); diff != "" {
				t.Errorf("descriptors differ (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]Attr{{"program", "jacobi"}}, rd.Attrs()); diff != "" {
				t.Errorf("attrs differ:\n%s", diff)
			}
			// WriteRecord writes the same bytes as WriteBuf.
			if wr := writeRecords(t, f, []Attr{{"program", "jacobi"}}, recs); !bytes.Equal(wr, out.Bytes()) {
				t.Errorf("WriteRecord and WriteBuf streams differ")
			}
		})
	}
}

func TestWriteRecordRoundTrip(t *testing.T) {
	recs := catalogRecords() // includes 3 x 0 arrays
	for _, f := range []Format{Binary, ASCII} {
		data := writeRecords(t, f, nil, recs)
		_, got := readAll(t, data)
		if diff := cmp.Diff(recs, got, cmpOpts...); diff != "" {
			t.Errorf("%v: records differ (-want +got):\n%s", f, diff)
		}
	}
}

// custom is a descriptor using every type and dimension, not in Catalog.
var custom = &Descriptor{Tag: 9001, Name: "custom \"rec\"", Event: "a\ttest\nrecord",
	Fields: []Field{
		{Int, "node id", 0},
		{Double, "clock microseconds", 0},
		{Char, "c", 0},
		{Float, "f", 0},
		{Char, "name", 1},
		{Char, "grid", 2},
		{Float, "fs", 1},
		{Double, "ds", 2},
		{Int, "cube", 3},
		{Double, "last", 0},
	}}

func customRecords() []*Record {
	var recs []*Record
	for i, s := range []shape{shapeFull, shapeEmpty, shapeRows0, shapeCols0} {
		recs = append(recs, fillRecord(custom, i+1, s))
	}
	r := fillRecord(custom, 9, shapeFull)
	r.Values[2].Int = 0
	r.Values[4] = Value{Dims: []int{6}, Str: "hello\x00"}
	r.Values[7] = Value{Dims: []int{1, 7}, Doubles: []float64{math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, math.MaxFloat64, 1e21, 0.1}}
	r.Values[3].Double = float64(math.SmallestNonzeroFloat32)
	r.Values[9].Double = math.NaN()
	recs = append(recs, r)
	r = fillRecord(custom, 10, shapeFull)
	r.Values[4] = Value{Dims: []int{3}, Str: "\x00\x00\x00"}
	r.Values[5] = Value{Dims: []int{1, 1}, Str: "\x00"}
	r.Values[0].Int = math.MinInt32
	r.Values[8] = Value{Dims: []int{1, 1, 2}, Ints: []int{math.MaxInt32, math.MinInt32}}
	recs = append(recs, r)
	return recs
}

func TestCustomDescriptor(t *testing.T) {
	recs := customRecords()
	for _, f := range []Format{Binary, ASCII} {
		data := writeRecords(t, f, nil, recs)
		rd, got := readAll(t, data)
		if diff := cmp.Diff(recs, got, cmpOpts...); diff != "" {
			t.Errorf("%v: records differ (-want +got):\n%s", f, diff)
		}
		ds := rd.Descriptors()
		if diff := cmp.Diff(custom, ds[len(ds)-1]); diff != "" {
			t.Errorf("%v: descriptor differs:\n%s", f, diff)
		}
	}
	if got := recs[4].String("name"); got != "hello" {
		t.Errorf("String(name) = %q", got)
	}
	line := fmt.Sprint(string(writeRecords(t, ASCII, nil, recs[4:5])))
	if !strings.Contains(line, `[6] { "hello" }`) || !strings.Contains(line, "+Inf, -Inf, -0, 5e-324") {
		t.Errorf("ASCII record not as documented:\n%s", line[strings.LastIndex(line, "};;\n\"")+4:])
	}
}

func TestConvertIdentity(t *testing.T) {
	attrs := []Attr{{"config", "{\n  \"a\": \"b\\\\c\"\n}"}, {"x", ""}}
	recs := append(catalogRecords(), customRecords()...)
	recs[len(recs)-2].Values[9].Double = 1 // no NaN: its payload does not survive ASCII
	bin := writeRecords(t, Binary, attrs, recs)
	asc := writeRecords(t, ASCII, attrs, recs)
	convert := func(f Format, src []byte) []byte {
		var out bytes.Buffer
		if err := Convert(&out, f, bytes.NewReader(src)); err != nil {
			t.Fatalf("Convert to %v: %v", f, err)
		}
		return out.Bytes()
	}
	if got := convert(ASCII, bin); !bytes.Equal(got, asc) {
		t.Errorf("binary -> ASCII differs from the ASCII writer:\n%s", firstDiff(asc, got))
	}
	if got := convert(Binary, asc); !bytes.Equal(got, bin) {
		t.Errorf("ASCII -> binary differs from the binary writer:\n%s", firstDiff(bin, got))
	}
	if got := convert(Binary, convert(ASCII, bin)); !bytes.Equal(got, bin) {
		t.Errorf("binary -> ASCII -> binary is not the identity")
	}
	if got := convert(ASCII, convert(Binary, asc)); !bytes.Equal(got, asc) {
		t.Errorf("ASCII -> binary -> ASCII is not the identity")
	}
	if got := convert(Binary, bin); !bytes.Equal(got, bin) {
		t.Errorf("binary -> binary is not the identity")
	}
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-60)
	return fmt.Sprintf("at byte %d:\nwant %q\ngot  %q", i, a[lo:min(len(a), i+60)], b[lo:min(len(b), i+60)])
}

func TestDescriptorASCIIGolden(t *testing.T) {
	// Seed 002, appendix B.1, with the layout the PDF extraction lost restored.
	const want = "#1301:\n" +
		"// \"event\" \"start a trace region\"\n" +
		"\"trace-region-start\" {\n" +
		"\tint\t\"node id\";\n" +
		"\tdouble\t\"clock microseconds\";\n" +
		"\tint\t\"subprogram number\";\n" +
		"\tint\t\"directive number\";\n" +
		"\tint\t\"trace region type\";\n" +
		"};;\n"
	if got := string(appendDescASCII(nil, Lookup(TagTraceRegionStart))); got != want {
		t.Errorf("descriptor:\n%s\nwant:\n%s", got, want)
	}
	const wantArr = "#1303:\n" +
		"// \"event\" \"information about a template\"\n" +
		"\"template-info\" {\n" +
		"\tint\t\"node id\";\n" +
		"\tdouble\t\"clock microseconds\";\n" +
		"\tint\t\"template id\";\n" +
		"\tint\t\"subprogram number\";\n" +
		"\tint\t\"directive number\";\n" +
		"\tint\t\"number of dimensions\";\n" +
		"\tint\t\"template shape\"[][];\n" +
		"};;\n"
	if got := string(appendDescASCII(nil, Lookup(TagTemplateInfo))); got != wantArr {
		t.Errorf("descriptor:\n%s\nwant:\n%s", got, wantArr)
	}
	// The whole stream starts with the header and then the catalogue.
	var out bytes.Buffer
	w, _ := NewWriter(&out, ASCII, nil)
	w.Close()
	if !strings.HasPrefix(out.String(), "SDDFA\n#1001:\n// \"event\" \"sum of read page faults\"\n\"read-page-fault-sum\" {\n\tint\t\"node id\";\n") {
		t.Errorf("stream start: %q", out.String()[:80])
	}
	// Records as in the package documentation.
	var b Buf
	b.Begin(TagTraceRegionStart, 0, 12.5)
	b.Int(1)
	b.Int(0)
	b.Int(RegionSubroutine)
	b.End()
	b.Begin(TagPageTravel, 1, 3.25)
	b.Int(2)
	b.Int(4096)
	b.Int(8192)
	b.Ints([]int{7, 8, 9})
	b.End()
	b.Begin(TagTemplateInfo, 0, 1)
	b.Int(3)
	b.Int(1)
	b.Int(2)
	b.Int(2)
	b.IntRows(2, []int{1, 10, 1, 20})
	b.End()
	b.Begin(TagAPSInfo, 0, 1.5)
	b.Ints(nil)
	b.End()
	out.Reset()
	w, _ = NewWriter(&out, ASCII, nil)
	if err := w.WriteBuf(&b); err != nil {
		t.Fatal(err)
	}
	w.Close()
	const wantRecs = "\"trace-region-start\" { 0, 12.5, 1, 0, 1 };;\n" +
		"\"page-travel\" { 1, 3.25, 2, 4096, 8192, [3] { 7, 8, 9 } };;\n" +
		"\"template-info\" { 0, 1, 3, 1, 2, 2, [2][2] { 1, 10, 1, 20 } };;\n" +
		"\"aps-info\" { 0, 1.5, [0] { } };;\n"
	if got := out.String(); !strings.HasSuffix(got, "};;\n"+wantRecs) {
		t.Errorf("records:\n%s\nwant:\n%s", got[len(got)-len(wantRecs):], wantRecs)
	}
}

// TestReadSeedStyle reads a hand-written stream in the Pablo layout, with
// spacing, field attributes and extra descriptor attributes the writer does
// not produce.
func TestReadSeedStyle(t *testing.T) {
	const src = "SDDFA\r\n/*\n * \"run\"   \"1\"\n*/\n" +
		"#1301:\n// \"event\" \"start a trace region\"\n// \"other\" \"x\"\n" +
		"\"trace-region-start\" {\n   int\n        \"node id\";\n   double \"clock microseconds\";\n" +
		"// \"unit\" \"none\"\n int \"subprogram number\"; int \"directive number\"; int \"trace region type\";\n};;\n" +
		"#7: \"s\" { char \"txt\"[]; char \"c\"; float \"f\"[]; };;\n" +
		"\"trace-region-start\"{2,12.5,1,0,1};;" +
		"\"s\" { [4] { \"a\\\"b\" }, \"\\x00\", [2] { 1.5, -2 } } ;;\n"
	rd, recs := readAll(t, []byte(src))
	if diff := cmp.Diff([]Attr{{"run", "1"}}, rd.Attrs()); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff(Lookup(TagTraceRegionStart), rd.Descriptors()[0]); diff != "" {
		t.Error(diff)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	if got, want := DumpLine(recs[0]), "node 2  t=12.500us  trace-region-start  subprogram number=1 directive number=0 trace region type=1"; got != want {
		t.Errorf("dump:\n%s\nwant\n%s", got, want)
	}
	if r := recs[1]; r.Values[0].Str != "a\"b\x00" || r.Values[1].Int != 0 || !cmp.Equal(r.Values[2].Doubles, []float64{1.5, -2}) {
		t.Errorf("record s: %+v", r.Values)
	}
	if r := recs[1]; r.Node() != -1 || r.Clock() != 0 {
		t.Errorf("Node, Clock of a record without them: %d %g", r.Node(), r.Clock())
	}
}

func TestRecordHelpers(t *testing.T) {
	r := fillRecord(Lookup(TagTemplateInfo), 3, shapeFull)
	r.Values[0].Int = 2
	r.Values[1].Double = 12.5
	if r.Node() != 2 || r.Clock() != 12.5 || r.Int("template id") != r.Values[2].Int || r.Int("nope") != 0 {
		t.Errorf("helpers: %d %g %d", r.Node(), r.Clock(), r.Int("template id"))
	}
	dims, vals := r.IntArray("template shape")
	if !cmp.Equal(dims, []int{2, 3}) || len(vals) != 6 {
		t.Errorf("IntArray: %v %v", dims, vals)
	}
	f := fillRecord(Lookup(TagReadPageFaultServiced), 1, shapeFull)
	if f.Clock() != f.Values[1].Double || f.Double("serviced clock microseconds") != f.Values[7].Double {
		t.Errorf("page fault clock %g", f.Clock())
	}
	if got := DumpLine(f); !strings.HasPrefix(got, "node 1  t=14.429us  read-page-fault-serviced  segment id=52 ") {
		t.Errorf("dump %q", got)
	}
	r.Values[6] = Value{Dims: []int{2, 2}, Ints: []int{1, 2, 3, 4}}
	if got := DumpLine(r); !strings.HasSuffix(got, "number of dimensions=255 template shape=[2][2]{1,2,3,4}") {
		t.Errorf("dump %q", got)
	}
}

func TestDump(t *testing.T) {
	var b Buf
	b.Begin(TagTraceRegionStart, 2, 12.5)
	b.Int(1)
	b.Int(0)
	b.Int(1)
	b.End()
	b.Begin(TagKernelTraceBufferOverflow, 0, 3)
	b.End()
	for _, f := range []Format{ASCII, Binary} {
		var out, dump bytes.Buffer
		w, _ := NewWriter(&out, f, nil)
		w.WriteBuf(&b)
		w.Close()
		if err := Dump(&dump, &out); err != nil {
			t.Fatal(err)
		}
		want := "node 2  t=12.500us  trace-region-start  subprogram number=1 directive number=0 trace region type=1\n" +
			"node 0  t=3.000us  kernel-trace-buffer-overflow\n"
		if dump.String() != want {
			t.Errorf("%v dump:\n%s\nwant:\n%s", f, dump.String(), want)
		}
	}
}

func TestAttrs(t *testing.T) {
	attrs := []Attr{
		{"config", `{"name": "a \"quoted\" \\ value", "list": [1, 2],` + "\n\t\"nested\": {\"x\": \"/* not a comment */\"}\n}"},
		{"multi\nline key", "line1\r\nline2\n"},
		{"ctl", "\x00\x01\x1f\x7f\xff é ✓ */ *\\/ **//"},
		{"empty", ""},
		{"", "empty key"},
	}
	for _, f := range []Format{ASCII, Binary} {
		data := writeRecords(t, f, attrs, nil)
		rd, recs := readAll(t, data)
		if len(recs) != 0 {
			t.Errorf("%d records", len(recs))
		}
		if diff := cmp.Diff(attrs, rd.Attrs()); diff != "" {
			t.Errorf("%v: attrs differ (-want +got):\n%s", f, diff)
		}
		if f == ASCII {
			block := string(data[:bytes.Index(data, []byte("#1001:"))])
			if strings.Count(block, "*/") != 1 || strings.Count(block, "\n") != len(attrs)+3 {
				t.Errorf("attribute block:\n%s", block)
			}
		}
	}
}

func TestWriterErrors(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(&out, ASCII, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Flush()
	n := out.Len()
	// An open record, a bad tag, a short packet: nothing is written.
	var b Buf
	b.Begin(TagTraceRegionStart, 0, 1)
	b.Int(1)
	b.Int(2)
	b.Int(3)
	b.End()
	b.Begin(TagTraceRegionStart, 0, 1)
	if err := w.WriteBuf(&b); err == nil || !strings.Contains(err.Error(), "record #2") {
		t.Errorf("open record: %v", err)
	}
	b.Reset()
	b.Begin(4242, 0, 1)
	b.End()
	if err := w.WriteBuf(&b); err == nil || !strings.Contains(err.Error(), "no descriptor for tag 4242") {
		t.Errorf("unknown tag: %v", err)
	}
	b.Reset()
	b.Begin(TagTraceRegionStart, 0, 1)
	b.Int(1)
	b.End()
	if err := w.WriteBuf(&b); err == nil || !strings.Contains(err.Error(), `record "trace-region-start" #1`) {
		t.Errorf("short record: %v", err)
	}
	bad := NewRecord(Lookup(TagAPSInfo))
	bad.Values[2].Dims = []int{2}
	if err := w.WriteRecord(bad); err == nil {
		t.Errorf("WriteRecord with 2 sizes and 0 elements succeeded")
	}
	bad.Values[2] = Value{Dims: []int{1}, Ints: []int{1 << 40}}
	if err := w.WriteRecord(bad); err == nil {
		t.Errorf("WriteRecord with a 41-bit int succeeded")
	}
	other := *Lookup(TagAPSInfo)
	other.Event = "changed"
	if err := w.WriteRecord(NewRecord(&other)); err == nil {
		t.Errorf("WriteRecord with a conflicting descriptor succeeded")
	}
	w.Flush()
	if out.Len() != n {
		t.Errorf("failed writes wrote %d bytes", out.Len()-n)
	}
	w.Close()
	if err := w.WriteBuf(&Buf{}); err == nil {
		t.Errorf("WriteBuf after Close succeeded")
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Errorf("ParseFormat(xml) succeeded")
	}
	if f, _ := ParseFormat("Binary"); f != Binary {
		t.Errorf("ParseFormat(Binary) = %v", f)
	}
}

func TestIntRowsMalformed(t *testing.T) {
	var b Buf
	b.Begin(TagTemplateDist, 0, 1)
	b.Int(1)
	b.IntRows(0, []int{1, 2, 3}) // no columns: 0 x 0
	b.End()
	b.Begin(TagTemplateDist, 0, 1)
	b.Int(1)
	b.IntRows(2, []int{1, 2, 3}) // 1 x 2, the odd element dropped
	b.End()
	var out bytes.Buffer
	w, _ := NewWriter(&out, Binary, nil)
	if err := w.WriteBuf(&b); err != nil {
		t.Fatal(err)
	}
	w.Close()
	_, recs := readAll(t, out.Bytes())
	if d, v := recs[1].IntArray("owned indices"); !cmp.Equal(d, []int{1, 2}) || !cmp.Equal(v, []int{1, 2}) {
		t.Errorf("got %v %v", d, v)
	}
}

// TestConcurrentWriteBuf writes from several goroutines; every record must
// arrive whole.
func TestConcurrentWriteBuf(t *testing.T) {
	for _, f := range []Format{ASCII, Binary} {
		var out bytes.Buffer
		w, _ := NewWriter(&out, f, nil)
		var wg sync.WaitGroup
		const procs, flushes, per = 4, 50, 20
		for p := 0; p < procs; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var b Buf
				for i := 0; i < flushes; i++ {
					for j := 0; j < per; j++ {
						b.Begin(TagTraceRegionStart, p, float64(i*per+j))
						b.Int(i)
						b.Int(j)
						b.Int(p)
						b.End()
					}
					if err := w.WriteBuf(&b); err != nil {
						t.Error(err)
					}
					b.Reset()
				}
			}()
		}
		wg.Wait()
		w.Close()
		_, recs := readAll(t, out.Bytes())
		if len(recs) != procs*flushes*per {
			t.Fatalf("%v: %d records", f, len(recs))
		}
		next := make([]int, procs)
		for _, r := range recs {
			p := r.Node()
			if r.Int("trace region type") != p || r.Clock() != float64(next[p]) {
				t.Fatalf("%v: record out of order: %s", f, DumpLine(r))
			}
			next[p]++
		}
	}
}

// smallTrace is a short stream of both formats with attributes, arrays and
// the record boundaries: ends[i] is the offset just after record i.
func smallTrace(t testing.TB, f Format) (data []byte, recs []*Record, ends []int) {
	recs = []*Record{
		fillRecord(Lookup(TagTraceRegionStart), 1, shapeFull),
		fillRecord(Lookup(TagPageTravel), 2, shapeFull),
		fillRecord(Lookup(TagTemplateInfo), 3, shapeFull),
		fillRecord(custom, 4, shapeFull),
		fillRecord(Lookup(TagAPSInfo), 5, shapeEmpty),
		fillRecord(Lookup(TagTraceRegionStop), 6, shapeFull),
	}
	var out bytes.Buffer
	w, err := newWriter(&out, f, []Attr{{"k", "v\n\"x\""}},
		[]*Descriptor{Lookup(TagTraceRegionStart), Lookup(TagPageTravel), Lookup(TagTemplateInfo)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		n := out.Len()
		if f == ASCII {
			n-- // the newline after ";;"
		}
		ends = append(ends, n)
	}
	w.Close()
	return out.Bytes(), recs, ends
}

func TestTruncated(t *testing.T) {
	for _, f := range []Format{ASCII, Binary} {
		data, recs, ends := smallTrace(t, f)
		for n := 0; n < len(data); n++ {
			want := 0
			for want < len(ends) && ends[want] <= n {
				want++
			}
			var got []*Record
			var err error
			rd, err := NewReader(bytes.NewReader(data[:n]))
			for err == nil {
				var r *Record
				r, err = rd.Next()
				if err == nil {
					got = append(got, r)
				}
			}
			for i, r := range got {
				if !sameRecord(recs[i], r) {
					t.Fatalf("%v cut at %d: record %d differs:\n%s", f, n, i, cmp.Diff(recs[i], r, cmpOpts...))
				}
			}
			if err == io.EOF {
				// A cut between packets (or in trailing space) is a valid stream.
				if len(got) != want {
					t.Fatalf("%v cut at %d: %d records and EOF, want %d", f, n, len(got), want)
				}
				continue
			}
			if len(got) != want {
				t.Fatalf("%v cut at %d: %d records before the error, want %d (%v)", f, n, len(got), want, err)
			}
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("%v cut at %d: error %T %v", f, n, err, err)
			}
			if wantMsg := fmt.Sprintf("trace: input: byte offset %d", n); !strings.HasPrefix(err.Error(), wantMsg) {
				t.Fatalf("%v cut at %d: error %q does not start %q", f, n, err, wantMsg)
			}
			// Once the next record's tag (binary) or name (ASCII) is
			// complete, the error names it.
			if want == len(recs) {
				continue
			}
			named := 12
			if f == ASCII {
				named = len(appendQuoted(nil, recs[want].Desc.Name))
			}
			start := bytes.LastIndexByte(data[:ends[want]], '\n') + 1
			if f == Binary {
				enc, _ := appendRecord(nil, recs[want])
				start = ends[want] - len(enc)
			}
			if want < len(recs) && n >= start+named &&
				!strings.Contains(err.Error(), fmt.Sprintf("(record %q #%d)", recs[want].Desc.Name, want+1)) &&
				!strings.Contains(err.Error(), "(descriptor") {
				t.Fatalf("%v cut at %d: error %q does not name record #%d", f, n, err, want+1)
			}
		}
	}
}

// TestTruncatedBinaryCount checks that a cut in the middle of a binary record
// names it.
func TestTruncatedBinaryNamesRecord(t *testing.T) {
	data, _, ends := smallTrace(t, Binary)
	_, err := readErr(data[:ends[2]-3])
	if err == nil || !strings.Contains(err.Error(), `(record "template-info" #3)`) {
		t.Errorf("error %v", err)
	}
	data, _, ends = smallTrace(t, ASCII)
	_, err = readErr(data[:ends[2]-5])
	if err == nil || !strings.Contains(err.Error(), `(record "template-info" #3)`) {
		t.Errorf("error %v", err)
	}
}

func readErr(data []byte) ([]*Record, error) {
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var recs []*Record
	for {
		r, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return recs, err
		}
		recs = append(recs, r)
	}
}

func TestCorrupt(t *testing.T) {
	bin, _, ends := smallTrace(t, Binary)
	asc, _, aends := smallTrace(t, ASCII)
	patch := func(b []byte, off int, v ...byte) []byte {
		c := bytes.Clone(b)
		copy(c[off:], v)
		return c
	}
	cases := []struct {
		name string
		data []byte
		nrec int
		want string
	}{
		{"magic", []byte("SDDFX\n"), 0, "byte offset 0: not an SDDF stream"},
		{"big-endian", patch(bin, 6, 0), 0, "byte offset 6: SDDFB byte order is 0, want 1 (big-endian"},
		{"int size", patch(bin, 14, 8), 0, "byte offset 14: SDDFB int size is 8"},
		{"huge length", patch(bin, ends[1], 0xff, 0xff, 0xff, 0x7f), 2, fmt.Sprintf("byte offset %d: bad packet length", ends[1])},
		{"bad kind", patch(bin, ends[1]+4, 9), 2, fmt.Sprintf("byte offset %d: unknown packet kind 9", ends[1]+4)},
		{"bad tag", patch(bin, ends[1]+8, 1), 2, fmt.Sprintf("byte offset %d (record #3): no descriptor for tag 1", ends[1]+8)},
		// template-info: tag, node, clock, 4 ints, then the 2 sizes.
		{"huge array", patch(bin, ends[1]+12+4+8+16, 0xff, 0xff, 0xff, 0x0f), 2, `(record "template-info" #3): field "template shape": array of 268435455 x 3 elements`},
		{"negative size", patch(bin, ends[1]+12+4+8+16, 0xff, 0xff, 0xff, 0xff), 2, `field "template shape": negative array size -1`},
		{"ascii bad int", bytes.Replace(asc, []byte(`"trace-region-stop" { 2, `), []byte(`"trace-region-stop" { x, `), 1), 5, `(record "trace-region-stop" #6): field "node id": bad int "x"`},
		{"ascii unknown record", bytes.Replace(asc, []byte(`"aps-info" { `), []byte(`"aps-infx" { `), 1), 4, `(record "aps-infx" #5): no descriptor for record "aps-infx"`},
		{"ascii short array", bytes.Replace(asc, []byte(`[3] {`), []byte(`[4] {`), 1), 1, `want "," (field "received pages" has 4 elements)`},
		{"ascii escape", bytes.Replace(asc, []byte(`v\n`), []byte(`v\q`), 1), 0, `(attribute block): unknown escape \q`},
		{"ascii huge array", bytes.Replace(asc, []byte(`[3] {`), []byte(`[99999999999] {`), 1), 1, `bad array size "99999999999"`},
		{"ascii huge 2d", bytes.Replace(asc, []byte(`[2][3] {`), []byte(`[2000000000][2000000000] {`), 1), 2, `array of more than`},
	}
	_ = aends
	for _, c := range cases {
		recs, err := readErr(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) || len(recs) != c.nrec {
			t.Errorf("%s: %d records, error %v\nwant %d records, error containing %q", c.name, len(recs), err, c.nrec, c.want)
		}
	}
}

// errReader fails after its data.
type errReader struct {
	data []byte
	err  error
}

func (e *errReader) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		return 0, e.err
	}
	n := copy(p, e.data)
	e.data = e.data[n:]
	return n, nil
}

func TestReadError(t *testing.T) {
	for _, f := range []Format{ASCII, Binary} {
		data, _, ends := smallTrace(t, f)
		boom := errors.New("boom")
		rd, err := NewReader(&errReader{data[:ends[1]+2], boom})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for ; ; n++ {
			if _, err = rd.Next(); err != nil {
				break
			}
		}
		if n != 2 || !strings.Contains(err.Error(), "read error: boom") {
			t.Errorf("%v: %d records, %v", f, n, err)
		}
	}
}

type namedReader struct {
	io.Reader
}

func (namedReader) Name() string { return "run.sddf" }

func TestErrorName(t *testing.T) {
	_, err := NewReader(namedReader{strings.NewReader("SDDFA\n#")})
	if err != nil {
		t.Fatal(err)
	}
	rd, _ := NewReader(namedReader{strings.NewReader("SDDFA\n#")})
	_, err = rd.Next()
	if err == nil || !strings.HasPrefix(err.Error(), "trace: run.sddf: byte offset 7 (descriptor #0): unexpected end of input") {
		t.Errorf("error %v", err)
	}
}

// A 4-byte length promising 256 MiB must not allocate it.
func TestNoBigAllocation(t *testing.T) {
	data := append(append([]byte{}, binHeader[:]...), 0, 0, 0, 0x10, PacketData, 0, 0, 0)
	allocs := testing.AllocsPerRun(5, func() {
		readErr(data)
	})
	var ms1, ms2 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	readErr(data)
	runtime.ReadMemStats(&ms2)
	if d := ms2.TotalAlloc - ms1.TotalAlloc; d > 1<<20 {
		t.Errorf("reading a truncated huge packet allocated %d bytes (%v allocs)", d, allocs)
	}
}

// sameRecord compares records by their binary encoding (fast, NaN-safe).
func sameRecord(a, b *Record) bool {
	ea, err1 := appendRecord(nil, a)
	eb, err2 := appendRecord(nil, b)
	return err1 == nil && err2 == nil && bytes.Equal(ea, eb) && sameDesc(a.Desc, b.Desc)
}

// TestWriteTrusted: the runtime's unchecked path writes the same stream as
// WriteBuf, in both formats.
func TestWriteTrusted(t *testing.T) {
	var b Buf
	recs := bufRecords()
	for _, r := range recs {
		appendBuf(t, &b, r)
	}
	for _, f := range []Format{Binary, ASCII} {
		var viaBuf, viaTrusted bytes.Buffer
		w1, _ := NewWriter(&viaBuf, f, nil)
		w2, _ := NewWriter(&viaTrusted, f, nil)
		if err := w1.WriteBuf(&b); err != nil {
			t.Fatal(err)
		}
		half := 0
		for off, k := 0, 0; k < len(recs)/2; k++ {
			off += 4 + int(binary.LittleEndian.Uint32(b.B[off:]))
			half = off
		}
		if err := w2.WriteTrusted(b.B[:half]); err != nil {
			t.Fatal(err)
		}
		if err := w2.WriteTrusted(b.B[half:]); err != nil {
			t.Fatal(err)
		}
		w1.Close()
		w2.Close()
		if !bytes.Equal(viaBuf.Bytes(), viaTrusted.Bytes()) {
			t.Errorf("%v: WriteTrusted and WriteBuf streams differ", f)
		}
		if _, got := readAll(t, viaTrusted.Bytes()); len(got) != len(recs) {
			t.Errorf("%v: %d records read back, want %d", f, len(got), len(recs))
		}
		if err := w2.WriteTrusted(b.B); err == nil {
			t.Errorf("%v: WriteTrusted after Close succeeded", f)
		}
	}
}

// TestAll: the iterator yields the records, then a damaged stream's error
// once, and stops early when the loop does.
func TestAll(t *testing.T) {
	data, recs, _ := smallTrace(t, Binary)
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r, err := range rd.All() {
		if err != nil || r == nil {
			t.Fatalf("record %d: %v", n, err)
		}
		n++
	}
	if n != len(recs) {
		t.Errorf("%d records, want %d", n, len(recs))
	}
	rd, _ = NewReader(bytes.NewReader(withoutIndex(t, data)[:len(withoutIndex(t, data))-3]))
	var errs, got int
	for r, err := range rd.All() {
		if err != nil {
			errs++
			if r != nil {
				t.Error("a record with the error")
			}
			continue
		}
		got++
	}
	if errs != 1 || got >= len(recs) {
		t.Errorf("truncated stream: %d records, %d errors; want fewer than %d records and one error", got, errs, len(recs))
	}
	rd, _ = NewReader(bytes.NewReader(data))
	for range rd.All() {
		break
	}
	if r, err := rd.Next(); err != nil || r == nil {
		t.Errorf("after an early break the reader goes on: %v", err)
	}
}
