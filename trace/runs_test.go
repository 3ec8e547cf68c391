package trace

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// withoutIndex is a binary stream a Writer closed, cut before its run
// index: what a run killed before it closed its trace leaves.
func withoutIndex(t *testing.T, data []byte) []byte {
	t.Helper()
	runs, _ := ReadRunIndex(bytes.NewReader(data), int64(len(data)))
	if runs == nil {
		t.Fatal("the stream has no run index")
	}
	last := runs[len(runs)-1]
	return data[:last.Off+last.N]
}

func TestTrailerSize(t *testing.T) {
	if got := len(appendTrailer(nil, 12345)); got != trailerSize || len(RunsAtKey) != 12 {
		t.Errorf("trailer %d bytes, want %d", got, trailerSize)
	}
}

// runsStream writes a stream as the runtime and the rank merge do:
// processors' buffers through WriteBuf and WriteTrusted, template-dist
// records the leader writes for others, single records, an attribute
// packet and a custom descriptor in the middle.
func runsStream(t *testing.T) []byte {
	var out bytes.Buffer
	w, err := NewWriter(&out, Binary, []Attr{{"processors", "3"}})
	if err != nil {
		t.Fatal(err)
	}
	var b Buf
	region := func(p int, clock float64) {
		b.Begin(TagTraceRegionStart, p, clock)
		b.Int(1)
		b.Int(0)
		b.Int(1)
		b.End()
	}
	for round := range 4 {
		for p := range 3 {
			for k := range 5 + p {
				region(p, float64(10*round+k))
			}
			if p == 0 {
				for q := range 3 {
					b.Begin(TagTemplateDist, q, 1)
					b.Int(1)
					b.IntRows(2, []int{0, 9})
					b.End()
				}
			}
			var err error
			if round%2 == 0 {
				err = w.WriteBuf(&b)
			} else {
				err = w.WriteTrusted(b.B)
			}
			if err != nil {
				t.Fatal(err)
			}
			b.Reset()
		}
		if round == 1 {
			if err := w.writeAttrs([]Attr{{"k", "v"}, {RunsKey, "1 0"}}); err != nil {
				t.Fatal(err)
			}
			if err := w.WriteRecord(fillRecord(custom, 2, shapeFull)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestRunIndex: the runs a Writer lists tile its stream, each processor's
// run holds its records only (template-dist with the leader that wrote
// it), and the stream read whole shows no trace of the index.
func TestRunIndex(t *testing.T) {
	data := runsStream(t)
	runs, nodes := ReadRunIndex(bytes.NewReader(data), int64(len(data)))
	if runs == nil || nodes != 3 {
		t.Fatalf("index: %v runs, %d nodes; want 3 nodes", runs, nodes)
	}
	perNode, err := VerifyRunIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	// 4 rounds of 5+p regions, processor 0 also 3 template-dist records a
	// round, processor 2's run the custom record (it follows that run).
	if want := map[int32]int{0: 4 * (5 + 3), 1: 4 * 6, 2: 4*7 + 1}; perNode[0] != want[0] || perNode[1] != want[1] || perNode[2] != want[2] {
		t.Errorf("records per processor %v, want %v", perNode, want)
	}
	if len(runs) < 12 {
		t.Errorf("%d runs, want a run per buffer written at least", len(runs))
	}
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := rd.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range rd.Attrs() {
		if a.Key == RunsKey || a.Key == RunsAtKey {
			t.Errorf("the reader shows the index attribute %q", a.Key)
		}
	}
	if len(rd.Attrs()) != 2 {
		t.Errorf("attributes %v, want processors and k", rd.Attrs())
	}
}

// TestRunIndexRejected: a stream whose end does not hold a valid index of
// it has none; a converted stream gets an index of its own.
func TestRunIndexRejected(t *testing.T) {
	data := runsStream(t)
	size := int64(len(data))
	at := size - trailerSize
	cases := map[string]func([]byte) []byte{
		"cut":           func(b []byte) []byte { return b[:len(b)-1] },
		"trailer digit": func(b []byte) []byte { b[len(b)-1] ^= 1; return b },
		"trailer key":   func(b []byte) []byte { b[at+16] = 'x'; return b },
		"list":          func(b []byte) []byte { i := bytes.LastIndex(b, []byte(";")); b[i+1] = '7'; return b },
		"run start": func(b []byte) []byte {
			runs, _ := ReadRunIndex(bytes.NewReader(b), size)
			b[runs[1].Off+4] = PacketDescriptor // a processor's run that starts with no record
			return b
		},
		"appended": func(b []byte) []byte { return append(b, 0) },
		"no data":  func(b []byte) []byte { return b[:19+trailerSize] },
		"claims all": func(b []byte) []byte { // an index said to begin right after the header
			copy(b[len(b)-20:], fmt.Sprintf("%020d", 19))
			return b
		},
	}
	for name, mutate := range cases {
		b := mutate(append([]byte{}, data...))
		if runs, _ := ReadRunIndex(bytes.NewReader(b), int64(len(b))); runs != nil {
			t.Errorf("%s: an index was read", name)
		}
	}
	var asc, bin bytes.Buffer
	if err := Convert(&asc, ASCII, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(asc.Bytes(), []byte(RunsKey)) {
		t.Error("the ASCII stream carries the binary stream's index")
	}
	if err := Convert(&bin, Binary, &asc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bin.Bytes(), data) {
		t.Error("binary -> ASCII -> binary does not give the same stream")
	}
}
