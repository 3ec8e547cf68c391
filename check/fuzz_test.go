package check

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
)

// msgTrace writes a small trace of message records: a receive entered
// before its send, a request completed twice, a stop without a start, a
// collective of a group of three with two members.
func msgTrace(t testing.TB, f trace.Format) []byte {
	var out bytes.Buffer
	w, err := trace.NewWriter(&out, f, []trace.Attr{{Key: "processors", Value: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(tag trace.Tag, node int, clock float64, set map[string]int) {
		r := trace.NewRecord(trace.Lookup(tag))
		r.Values[0].Int, r.Values[1].Double = node, clock
		for name, v := range set {
			r.Value(name).Int = v
		}
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	rec(trace.TagMsgCallStart, 1, 5, map[string]int{"call kind": trace.CallRecv, "peer": -1, "tag": -1, "call site": 2})
	rec(trace.TagMsgCallStart, 0, 6, map[string]int{"call kind": trace.CallIsend, "peer": 1, "request id": 1, "message id": 1, "call site": 1})
	rec(trace.TagMsgCallStop, 0, 7, map[string]int{"call kind": trace.CallIsend, "request id": 1, "call site": 1})
	rec(trace.TagMsgCallStop, 1, 10, map[string]int{"call kind": trace.CallRecv, "call site": 2, "matched source": 0, "message id": 1})
	rec(trace.TagMsgRequestDone, 0, 11, map[string]int{"call kind": trace.CallIsend, "request id": 1, "call site": 3, "matched source": 1})
	rec(trace.TagMsgRequestDone, 0, 12, map[string]int{"call kind": trace.CallIsend, "request id": 1, "call site": 3})
	rec(trace.TagMsgCallStop, 1, 13, map[string]int{"call kind": trace.CallSend, "call site": 9})
	rec(trace.TagMsgCallStart, 0, 14, map[string]int{"call kind": trace.CallAllreduce, "group": 1, "message id": 1, "group size": 3, "peer": -1})
	rec(trace.TagMsgCallStart, 1, 15, map[string]int{"call kind": trace.CallBcast, "group": 1, "message id": 1, "group size": 3, "peer": 7})
	w.Close()
	return out.Bytes()
}

// FuzzAnalyze feeds arbitrary traces to the checker: it ends with a
// result or an error, never a panic, whatever the records say.
func FuzzAnalyze(f *testing.F) {
	f.Add(msgTrace(f, trace.Binary))
	f.Add(msgTrace(f, trace.ASCII))
	if data, err := os.ReadFile(filepath.Join("..", "export", "testdata", "halo.sddf")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		stop := time.AfterFunc(10*time.Second, func() { panic("FuzzAnalyze: an input took more than 10 s") })
		defer stop.Stop()
		res, err := Analyze(bytes.NewReader(data), int64(len(data)), "fuzz.sddf", Options{})
		if err == nil {
			var b bytes.Buffer
			if err := WriteText(&b, "fuzz.sddf", res, PrintOptions{Times: true}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// The odd trace above is analysed, not refused: the collective's members
// disagree, the request completed twice is noted once.
func TestOddTrace(t *testing.T) {
	data := msgTrace(t, trace.Binary)
	res, err := Analyze(bytes.NewReader(data), int64(len(data)), "odd.sddf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range res.Diagnoses {
		if d.Class == DifferentOrder {
			found = true
		}
	}
	if !found {
		t.Errorf("diagnoses %+v, want the collectives' different order", res.Diagnoses)
	}
}

// A collective every member started and none finished, in a trace without
// trace-end (a killed run): unfinished gop, once, at its call.
func TestUnfinishedGop(t *testing.T) {
	var out bytes.Buffer
	w, err := trace.NewWriter(&out, trace.Binary, []trace.Attr{{Key: "processors", Value: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	for p := range 2 {
		r := trace.NewRecord(trace.Lookup(trace.TagMsgCallStart))
		r.Values[0].Int, r.Values[1].Double = p, float64(10+p)
		for name, v := range map[string]int{"call kind": trace.CallAllreduce, "call site": 4, "group": 1, "message id": 1, "group size": 2, "peer": -1, "count": 1} {
			r.Value(name).Int = v
		}
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	data := out.Bytes()
	res, err := Analyze(bytes.NewReader(data), int64(len(data)), "killed.sddf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnoses) != 1 || res.Diagnoses[0].Class != UnfinishedGop || len(res.Diagnoses[0].Processors) != 2 {
		t.Errorf("diagnoses %+v, want one unfinished gop of both processors", res.Diagnoses)
	}
}
