package replay

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// TestIndexFromWriter: the runs a Writer lists at a stream's end are the
// segments a scan of the stream finds, so a trace reads the same whether
// its index is read or scanned; a stream cut before its index (a killed
// run) is scanned, and a cut one whose index is damaged too.
func TestIndexFromWriter(t *testing.T) {
	traces := map[string][]byte{
		"lanes":    tracetest.Lanes(3, 1500).MustEncode(t, trace.Binary, tracetest.Prog()),
		"sync":     tracetest.Sync2().MustEncode(t, trace.Binary, tracetest.Prog()),
		"measured": tracetest.Measured().MustEncode(t, trace.Binary, tracetest.Prog()),
	}
	for name, data := range traces {
		runs, nodes := trace.ReadRunIndex(bytes.NewReader(data), int64(len(data)))
		if runs == nil {
			t.Fatalf("%s: no run index", name)
		}
		last := runs[len(runs)-1]
		at := last.Off + last.N
		indexed, n, err := indexOf(Bytes(data), int64(len(data)), data)
		if err != nil {
			t.Fatal(err)
		}
		scanned, sn, err := indexBinary(Bytes(data[:at]), at, data[:at])
		if err != nil || scanned == nil {
			t.Fatalf("%s: scan: %v", name, err)
		}
		if fmt.Sprint(indexed) != fmt.Sprint(scanned) || n != sn || n != nodes {
			t.Errorf("%s: index %v (%d streams), scan %v (%d)", name, indexed, n, scanned, sn)
		}
		// The index is what indexOf reads: with the second packet of a
		// run damaged, the scan gives up where the index does not look.
		bad := append([]byte{}, data...)
		r := runs[1]
		second := r.Off + 4 + int64(bad[r.Off]) + int64(bad[r.Off+1])<<8
		bad[second+4] = 9
		if segs, _, _ := indexOf(Bytes(bad), int64(len(bad)), bad); segs == nil {
			t.Errorf("%s: the index was not read", name)
		}
		if segs, _, _ := indexBinary(Bytes(bad), int64(len(bad)), bad); segs != nil {
			t.Errorf("%s: the scan took a damaged packet", name)
		}
		// The report's path reads the same records either way.
		got, _, ok1 := clockOrder(t, data)
		want, _, ok2 := clockOrder(t, data[:at])
		if ok1 != ok2 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: records read through the index differ from those read through a scan", name)
		}
	}
}
