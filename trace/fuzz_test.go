package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzReader feeds arbitrary bytes to the reader, raw or after an ASCII or
// binary header (mode). Damaged input must give a *CorruptError (never a
// panic) and the records before it; Convert of damaged input must write
// exactly those records. A stream read without error must convert to both
// formats and read back to the same attributes and records.
func FuzzReader(f *testing.F) {
	asc, _, _ := smallTrace(f, ASCII)
	bin, _, _ := smallTrace(f, Binary)
	f.Add(byte(0), asc)
	f.Add(byte(0), bin)
	f.Add(byte(1), asc[len("SDDFA\n"):])
	f.Add(byte(2), bin[binHeaderSize:])
	f.Add(byte(1), []byte("#5: \"r\" { char \"c\"; char \"s\"[][]; float \"f\"[]; };;\n\"r\" { \"x\", [2][1] { \"a\" }, [1] { NaN } };;\n"))
	f.Add(byte(1), []byte("/*\n * \"k\" \"\\x00\\/\"\n */ ;;\n#1: \"a\" { int \"i\"[][][]; };;\n\"a\" { [0][2][3] { } };;\n"))
	f.Add(byte(2), []byte{8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		var in []byte
		switch mode % 3 {
		case 1:
			in = append([]byte("SDDFA\n"), data...)
		case 2:
			in = append(binHeader[:len(binHeader):len(binHeader)], data...)
		default:
			in = data
		}
		rd, recs, err := fuzzRead(in)
		if rd != nil && rd.Format() == Binary {
			// NextData reads the same records and fails the same way.
			rrecs, rerr := rawRead(in)
			if fmt.Sprint(rerr) != fmt.Sprint(err) {
				t.Fatalf("NextData: error %v, Next: %v", rerr, err)
			}
			if !cmp.Equal(recs, rrecs, cmpOpts...) {
				t.Fatalf("NextData: records differ:\n%s", cmp.Diff(recs, rrecs, cmpOpts...))
			}
			// And so does a reader of the bytes where they lie, cut in
			// three anywhere (a packet across two pieces is joined).
			a, b := len(in)/3, 2*len(in)/3+int(mode)%5
			b = min(b, len(in))
			srecs, serr := segRead(in[:a:a], in[a:b:b], in[b:])
			if fmt.Sprint(serr) != fmt.Sprint(err) || !cmp.Equal(recs, srecs, cmpOpts...) {
				t.Fatalf("NewBytesReader: error %v, Next: %v; records differ:\n%s", serr, err, cmp.Diff(recs, srecs, cmpOpts...))
			}
		}
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T: %v", err, err)
			}
			if !strings.HasPrefix(err.Error(), "trace: input: byte offset ") || ce.Offset < 0 || ce.Offset > int64(len(in)) {
				t.Fatalf("bad error %q for %d bytes of input", err, len(in))
			}
			if rd == nil {
				return
			}
			// Convert writes the records before the damage.
			for _, f := range []Format{ASCII, Binary} {
				var out bytes.Buffer
				if cerr := Convert(&out, f, bytes.NewReader(in)); cerr == nil || cerr.Error() != err.Error() {
					t.Fatalf("Convert to %v: error %v, want %v", f, cerr, err)
				}
				_, got, err := fuzzRead(out.Bytes())
				if err != nil {
					t.Fatalf("reading the %v conversion of a damaged stream: %v", f, err)
				}
				if !cmp.Equal(recs, got, cmpOpts...) {
					t.Fatalf("%v conversion of a damaged stream: records differ:\n%s", f, cmp.Diff(recs, got, cmpOpts...))
				}
			}
			return
		}
		if err := Dump(io.Discard, bytes.NewReader(in)); err != nil {
			t.Fatalf("Dump: %v", err)
		}
		for _, f := range []Format{ASCII, Binary} {
			var out bytes.Buffer
			if err := Convert(&out, f, bytes.NewReader(in)); err != nil {
				t.Fatalf("Convert to %v: %v", f, err)
			}
			rd2, got, err := fuzzRead(out.Bytes())
			if err != nil {
				t.Fatalf("reading the %v conversion: %v\n%q", f, err, out.Bytes())
			}
			if !cmp.Equal(recs, got, cmpOpts...) {
				t.Fatalf("%v conversion: records differ:\n%s", f, cmp.Diff(recs, got, cmpOpts...))
			}
			if !cmp.Equal(rd.Attrs(), rd2.Attrs(), cmpOpts...) {
				t.Fatalf("%v conversion: attrs differ:\n%s", f, cmp.Diff(rd.Attrs(), rd2.Attrs(), cmpOpts...))
			}
		}
	})
}

// rawRead reads all records of a binary stream with NextData.
func rawRead(data []byte) ([]*Record, error) {
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return nextData(rd)
}

// segRead reads all records of a binary stream in pieces with
// NewBytesReader and NextData.
func segRead(segs ...[]byte) ([]*Record, error) {
	rd, err := NewBytesReader("input", segs...)
	if err != nil {
		return nil, err
	}
	return nextData(rd)
}

// nextData reads the records left with NextData.
func nextData(rd *Reader) ([]*Record, error) {
	var recs []*Record
	for {
		d, fields, err := rd.NextData()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, rd.Record(d, fields))
	}
}

// fuzzRead reads all records of data (rd is nil if NewReader failed).
func fuzzRead(data []byte) (*Reader, []*Record, error) {
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var recs []*Record
	for r, err := range rd.All() {
		if err != nil {
			return rd, recs, err
		}
		recs = append(recs, r)
	}
	return rd, recs, nil
}

// FuzzFits holds NextData's check of a record with arrays (fits) to the
// full decoder's: the same bytes pass or fail both, for every descriptor
// of the catalog.
func FuzzFits(f *testing.F) {
	f.Add(uint16(0), []byte{})
	f.Add(uint16(7), []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0})
	f.Add(uint16(40), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, k uint16, p []byte) {
		d := Catalog[int(k)%len(Catalog)]
		want := decodeData(d, p, nil, nil, nil) == nil
		if got := fits(d, p); got != want {
			t.Fatalf("%s: fits %v, decodeData %v on % x", d.Name, got, want, p)
		}
	})
}
