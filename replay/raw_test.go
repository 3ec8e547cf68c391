package replay

import (
	"bytes"
	"io"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/svmc/svmc/trace"
)

// TestDecodeRaw: for a record of every descriptor of the catalogue, with
// arrays, names and message fields filled in, and for records a reader
// must refuse (a negative node, a clock that is no number), decodeRaw
// gives the Event (or the refusal) decode gives from the Record.
func TestDecodeRaw(t *testing.T) {
	var recs []*trace.Record
	for k, d := range trace.Catalog {
		r := trace.NewRecord(d)
		for i, f := range d.Fields {
			v := &r.Values[i]
			switch {
			case f.Name == "node id":
				v.Int = k % 3
			case f.Dims == 0 && (f.Type == trace.Int || f.Type == trace.Char):
				v.Int = 7 + i + k
			case f.Dims == 0:
				v.Double = 1.5 + float64(i+k)
			case f.Type == trace.Char:
				v.Dims = []int{6}
				v.Str = "name\x00\x00"
			case f.Type == trace.Int && f.Dims == 2:
				v.Dims, v.Ints = []int{2, 3}, []int{1, 2, 3, 4, 5, 6}
			case f.Type == trace.Int:
				v.Dims, v.Ints = []int{4}, []int{0, 10, 0, 20}
			default:
				v.Dims = make([]int, f.Dims)
				v.Dims[0] = 2
				for j := 1; j < f.Dims; j++ {
					v.Dims[j] = 1
				}
				v.Doubles = []float64{0.25, 0.5}
			}
		}
		recs = append(recs, r)
	}
	bad := func(tag trace.Tag, set func(r *trace.Record)) {
		d := trace.Lookup(tag)
		r := trace.NewRecord(d)
		set(r)
		recs = append(recs, r)
	}
	bad(trace.TagTraceRegionStart, func(r *trace.Record) { r.Values[0].Int = -3 })
	bad(trace.TagTraceRegionStop, func(r *trace.Record) { r.Values[1].Double = math.NaN() })
	bad(trace.TagPDOWork, func(r *trace.Record) { r.Values[1].Double = math.Inf(1) })

	var buf bytes.Buffer
	w, err := trace.NewWriter(&buf, trace.Binary, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			t.Fatalf("%s: %v", r.Desc.Name, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := trace.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	raw, slow := newDecoder(), newDecoder()
	for i := 0; ; i++ {
		d, f, err := rd.NextData()
		if err == io.EOF {
			if i != len(recs) {
				t.Fatalf("%d records read, %d written", i, len(recs))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		var got, want Event
		gmsg := raw.decodeRaw(d, f, &got)
		wmsg := slow.decode(rd.Record(d, f), &want, false)
		want.Rec = nil
		if gmsg != wmsg {
			t.Errorf("%s: decodeRaw says %q, decode %q", d.Name, gmsg, wmsg)
			continue
		}
		if wmsg != "" {
			continue
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: decodeRaw (+) against decode (-):\n%s", d.Name, diff)
		}
	}
}
