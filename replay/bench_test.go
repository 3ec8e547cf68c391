package replay

import (
	"bytes"
	"io"
	"testing"

	"github.com/svmc/svmc/trace"
)

// benchTrace is a binary trace of about n records on procs processors as
// the runtime writes them: per processor 1 MiB buffers written out as runs,
// each loop instance a region start, pdo-work, a barrier's start and stop
// and a region stop on every processor.
func benchTrace(b testing.TB, procs, n int) ([]byte, int) {
	var out bytes.Buffer
	w, err := trace.NewWriter(&out, trace.Binary, []trace.Attr{{Key: "processors", Value: "4"}})
	if err != nil {
		b.Fatal(err)
	}
	bufs := make([]trace.Buf, procs)
	recs := 0
	flush := func(p int, force bool) {
		if bf := &bufs[p]; bf.Len() > 0 && (force || bf.Len() >= 1<<20) {
			recs += bf.Records()
			if err := w.WriteBuf(bf); err != nil {
				b.Fatal(err)
			}
			bf.Reset()
		}
	}
	t := 0.0
	for k := 0; recs < n; k++ {
		for p := range procs {
			bf := &bufs[p]
			bf.Begin(trace.TagTraceRegionStart, p, t)
			bf.Int(1)
			bf.Int(2)
			bf.Int(trace.RegionPDO)
			bf.End()
			bf.Begin(trace.TagPDOWork, p, t+50)
			bf.Int(1)
			bf.Int(2)
			bf.Int(100)
			bf.Double(50)
			bf.Int(0)
			bf.Double(0)
			bf.End()
			bf.Begin(trace.TagWaitBarrierStart, p, t+50)
			bf.Int(1)
			bf.Int(2)
			bf.End()
			bf.Begin(trace.TagWaitBarrierStop, p, t+60)
			bf.Int(1)
			bf.Int(2)
			bf.End()
			bf.Begin(trace.TagTraceRegionStop, p, t+61)
			bf.Int(1)
			bf.Int(2)
			bf.Int(trace.RegionPDO)
			bf.End()
			flush(p, false)
		}
		t += 70
	}
	for p := range procs {
		flush(p, true)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return out.Bytes(), recs
}

// BenchmarkDecode: a binary trace of 1 M records on 4 processors decoded
// into Events, no merge: in file order by one goroutine (Decode), and the
// processors' streams of the indexed file side by side, each by a
// goroutine of its own (what OrderFile's merge is fed by), finding the
// runs included: the trace's run index read (trace/runs.go), or the scan
// of a trace without one.
func BenchmarkDecode(b *testing.B) {
	data, n := benchTrace(b, 4, 1_000_000)
	b.Run("file-order", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			rd, err := trace.NewReader(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Decode(rd, false, func(*Event) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
	// index: the scan alone (serial: the report waits for it), for a trace
	// without a run index.
	b.Run("index", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if segs, _, err := indexBinary(Bytes(data), int64(len(data)), data); err != nil || segs == nil {
				b.Fatal("no index", err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
	// per-processor: reading the run index and the decoding; decode-only:
	// the streams of an index made once (what a view's windows spend).
	for _, indexed := range []bool{false, true} {
		name := "per-processor"
		if indexed {
			name = "decode-only"
		}
		b.Run(name, func(b *testing.B) {
			var segs []segment
			var nodes int
			if indexed {
				var err error
				if segs, nodes, err = indexBinary(Bytes(data), int64(len(data)), data); err != nil || segs == nil {
					b.Fatal("no index", err)
				}
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var ni *nodeInput
				var err error
				if indexed {
					ni, err = nodeInputOf(Bytes(data), data, segs, nodes, "bench")
				} else {
					ni, err = newNodeInput(Bytes(data), int64(len(data)), "bench", data)
				}
				if err != nil || ni == nil {
					b.Fatal("no index", err)
				}
				p := startParallel(ni, len(ni.readers), false)
				got, live := 0, len(p.feeds)
				ended := make([]bool, live)
				for live > 0 { // a batch of each in turn, as the merge takes them
					for q := range p.feeds {
						if ended[q] {
							continue
						}
						bt := <-p.feeds[q]
						got += len(bt.items)
						if bt.err != nil {
							if bt.err != io.EOF {
								b.Fatal(bt.err)
							}
							ended[q] = true
							live--
							continue
						}
						select {
						case p.free[q] <- bt:
						default:
						}
					}
				}
				p.stop()
				if got != n {
					b.Fatalf("%d records decoded, %d written", got, n)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// TestStopWaitsForDecoders: a merge that ends early (an error, or the
// consistent order's first try) stops the decoders, and stop returns only
// once none runs: they read the trace where it is mapped, and the caller
// unmaps it next (x235's svmc view faulted once on an unmapped page in a
// decoder's batch).
func TestStopWaitsForDecoders(t *testing.T) {
	data, _ := benchTrace(t, 4, 100000)
	for range 20 {
		ni, err := newNodeInput(Bytes(data), int64(len(data)), "early", data)
		if err != nil || ni == nil {
			t.Fatal("no index", err)
		}
		p := startParallel(ni, len(ni.readers), false)
		<-p.feeds[0] // the merge took one batch and ended
		p.stop()
		if n := p.running.Load(); n != 0 {
			t.Fatalf("%d decoders still reading the trace after stop", n)
		}
	}
}
