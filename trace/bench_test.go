package trace

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"testing"
)

func BenchmarkBufAppend(b *testing.B) {
	var buf Buf
	buf.B = make([]byte, 0, 1<<20)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if buf.Len() > 1<<20-64 {
			buf.Reset()
		}
		buf.Begin(TagTraceRegionStart, 1, float64(i))
		buf.Int(3)
		buf.Int(7)
		buf.Int(RegionPDO)
		buf.End()
	}
}

// benchBuf holds n records of a typical mix: region start/stop pairs and an
// aps-info and a template-info with arrays every 10 pairs.
func benchBuf(n int) *Buf {
	var buf Buf
	for i := 0; buf.Records() < n; i++ {
		buf.Begin(TagTraceRegionStart, i%4, float64(i)*1.25)
		buf.Int(i % 13)
		buf.Int(i % 5)
		buf.Int(RegionPDO)
		buf.End()
		buf.Begin(TagTraceRegionStop, i%4, float64(i)*1.25+0.5)
		buf.Int(i % 13)
		buf.Int(i % 5)
		buf.Int(RegionPDO)
		buf.End()
		if i%10 == 0 {
			buf.Begin(TagAPSInfo, i%4, float64(i))
			buf.Ints([]int{0, 1, 2, 3})
			buf.End()
			buf.Begin(TagTemplateInfo, i%4, float64(i))
			buf.Int(1)
			buf.Int(2)
			buf.Int(3)
			buf.Int(2)
			buf.IntRows(2, []int{1, 100, 1, 200})
			buf.End()
		}
	}
	return &buf
}

func BenchmarkWriteASCII(b *testing.B) {
	buf := benchBuf(10000)
	w, err := NewWriter(io.Discard, ASCII, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.WriteBuf(buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Records())*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkWriteBinary(b *testing.B) {
	buf := benchBuf(10000)
	w, err := NewWriter(io.Discard, Binary, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.WriteBuf(buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Records())*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// copySink copies what it is given, as writing to a file's page cache
// would, where io.Discard would make an unchecked write free.
type copySink struct{ b []byte }

func (s *copySink) Write(p []byte) (int, error) {
	if cap(s.b) < len(p) {
		s.b = make([]byte, len(p))
	}
	return copy(s.b[:len(p)], p), nil
}

// BenchmarkWriteBinaryTrusted: the runtime's path (WriteTrusted), which
// copies the packets without checking them (into a copySink). Its buffer
// mixes processors record by record (5 000 runs a write), so after 53
// writes the stream has too many runs for an index and keeps none: with
// the default bench time, the copy alone.
func BenchmarkWriteBinaryTrusted(b *testing.B) { benchTrusted(b, benchBuf(10000), false) }

// BenchmarkWriteBinaryRun: WriteTrusted of one processor's buffer, as the
// runtime writes them: the run index follows each packet's processor.
func BenchmarkWriteBinaryRun(b *testing.B) {
	buf := benchBuf(10000)
	for off := 0; off < len(buf.B); {
		n := int(binary.LittleEndian.Uint32(buf.B[off:]))
		binary.LittleEndian.PutUint32(buf.B[off+12:], 3) // every record processor 3's
		off += 4 + n
	}
	benchTrusted(b, buf, true)
}

// benchTrusted writes buf through WriteTrusted b.N times; indexed says
// whether the writer must still keep the run index at the end.
func benchTrusted(b *testing.B, buf *Buf, indexed bool) {
	w, err := NewWriter(&copySink{}, Binary, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.WriteTrusted(buf.B); err != nil {
			b.Fatal(err)
		}
	}
	if indexed && (w.runs == nil || len(w.runs.Runs) != 2) {
		b.Fatal("the writer does not keep the run index")
	}
	b.ReportMetric(float64(buf.Records())*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func benchRead(b *testing.B, f Format) {
	buf := benchBuf(10000)
	var out bytes.Buffer
	w, _ := NewWriter(&out, f, nil)
	w.WriteBuf(buf)
	w.Close()
	data := out.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		rd, err := NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range rd.All() {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkReadBinary(b *testing.B) { benchRead(b, Binary) }
func BenchmarkReadASCII(b *testing.B)  { benchRead(b, ASCII) }

// BenchmarkReadBinaryRaw: NextData over the same records, the fields read
// where they lie (a clock and three ints of every record), no Record.
func BenchmarkReadBinaryRaw(b *testing.B) {
	buf := benchBuf(10000)
	var out bytes.Buffer
	w, _ := NewWriter(&out, Binary, nil)
	w.WriteBuf(buf)
	w.Close()
	data := out.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	var sink float64
	for b.Loop() {
		rd, err := NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, f, err := rd.NextData()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			sink += math.Float64frombits(binary.LittleEndian.Uint64(f[4:])) + float64(binary.LittleEndian.Uint32(f[12:]))
			n++
		}
	}
	_ = sink
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}
