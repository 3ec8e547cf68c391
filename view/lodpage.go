package view

import (
	"bytes"
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"net/http"
	"strconv"
)

// The page of a level-of-detail timeline is the ordinary page with no
// interval of its own and the summaries beside them ("lod" in its data):
//
//	lod  {buckets: B, serve: bool, limit: records,
//	      lanes: [{rows: [[kind, cover, kind, cover, ...] per row], n: [records per bucket]}]}
//
// The script draws a bucket a bar while the part shown holds more than
// limit records; served (svmc view --serve), it then asks for the detail
// of the part shown (window?t0=A&t1=B, µs from the start of the run, the
// data object of the ordinary page of that part) and draws it as usual.

// WriteLODPage writes the page of l; serve: the page asks the address it
// was loaded from for windows of detail (LODHandler).
func WriteLODPage(w io.Writer, l *LOD, serve bool) error {
	tl := l.outline()
	sum := &Summary{From: l.Start, To: l.End, RunTime: l.End - l.Start}
	for p, ln := range l.Lanes {
		busy := ln.Busy
		sum.PerProc = append(sum.PerProc, ProcSummary{Proc: p, Busy: busy, Wait: ln.Wait,
			Idle: max(0, sum.RunTime-busy-ln.Wait)})
	}
	var buf bytes.Buffer
	if err := pageHead.Execute(&buf, headData{Title: title(tl), CSS: template.CSS(pageCSS)}); err != nil {
		return err
	}
	sd := sideData(tl, sum)
	sd.Records = l.Records
	sd.Order = "the records' clocks (no consistent order across processors in a large trace)"
	used := make([]bool, NumKinds)
	for _, ln := range l.Lanes {
		for _, row := range ln.Rows {
			for _, c := range row {
				if c.Kind >= 0 {
					used[c.Kind] = true
				}
			}
		}
	}
	for k := Kind(0); k < NumKinds; k++ {
		if used[k] {
			sd.Legend = append(sd.Legend, sideKind{k.String(), template.CSS(kinds[k].color), k.style()})
		}
	}
	sd.LOD = "A large trace: " + strconv.FormatInt(l.Records, 10) + " records, drawn as " + strconv.Itoa(l.Buckets) +
		" parts of the run per lane and depth, each in the colour of the kind covering most of it. "
	if serve {
		sd.LOD += "Zoom in: where a part shows at most " + strconv.Itoa(l.Limit) + " records, its records are drawn one by one. "
	} else {
		sd.LOD += "svmc view --serve draws the records one by one where one zooms in. "
	}
	sd.LOD += "Times are the records' clocks (no consistent order across processors); svmc report gives the top regions and waits."
	if err := pageSide.Execute(&buf, sd); err != nil {
		return err
	}
	buf.WriteString(`<script id="svmc-data" type="application/json">`)
	var data bytes.Buffer
	if err := appendData(&data, tl); err != nil {
		return err
	}
	b := bytes.TrimSuffix(data.Bytes(), []byte("}"))
	buf.Write(b)
	buf.WriteString(",\n\"lod\":")
	if err := l.appendSummaries(&buf, serve); err != nil {
		return err
	}
	buf.WriteString("}</script>\n<script>\n")
	buf.WriteString(pageJS)
	buf.WriteString("</script>\n</body>\n</html>\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// outline is the timeline of l without intervals: what the page's frame
// shows.
func (l *LOD) outline() *Timeline {
	tl := &Timeline{Trace: l.Trace, Procs: l.Procs, Records: l.Records, Start: l.Start, End: l.End, GC: l.GC, Ended: l.Ended}
	if l.Prog != nil {
		tl.Program = l.Prog.Package
	}
	for _, ln := range l.Lanes {
		tl.Lanes = append(tl.Lanes, ln.Name)
	}
	return tl
}

func (l *LOD) appendSummaries(buf *bytes.Buffer, serve bool) error {
	type lane struct {
		Rows [][]int `json:"rows"`
		N    []int32 `json:"n"`
	}
	out := struct {
		Buckets int    `json:"buckets"`
		Serve   bool   `json:"serve"`
		Limit   int    `json:"limit"`
		Lanes   []lane `json:"lanes"`
	}{Buckets: l.Buckets, Serve: serve, Limit: l.Limit}
	for _, ln := range l.Lanes {
		x := lane{N: ln.Records, Rows: [][]int{}}
		if x.N == nil {
			x.N = make([]int32, l.Buckets)
		}
		for _, row := range ln.Rows {
			r := make([]int, 2*len(row))
			for b, c := range row {
				r[2*b], r[2*b+1] = int(c.Kind), int(c.Cover)
			}
			x.Rows = append(x.Rows, r)
		}
		out.Lanes = append(out.Lanes, x)
	}
	return writeJSON(buf, out)
}

// LODHandler serves the page of l (/) and its windows of detail
// (/window?t0=A&t1=B, µs from the start of the run): svmc view --serve.
func LODHandler(l *LOD) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := WriteLODPage(w, l, true); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("/window", func(w http.ResponseWriter, r *http.Request) {
		t0, err0 := strconv.ParseFloat(r.URL.Query().Get("t0"), 64)
		t1, err1 := strconv.ParseFloat(r.URL.Query().Get("t1"), 64)
		w.Header().Set("Content-Type", "application/json")
		fail := func(code int, msg string) {
			w.WriteHeader(code)
			json.NewEncoder(w).Encode(map[string]string{"error": msg})
		}
		if err0 != nil || err1 != nil || !(t1 >= t0) {
			fail(http.StatusBadRequest, "want window?t0=A&t1=B with A <= B, µs from the start of the run")
			return
		}
		tl, err := l.Window(l.Start+t0, l.Start+t1, 0)
		if errors.Is(err, ErrWindowTooLarge) {
			fail(http.StatusRequestEntityTooLarge, err.Error())
			return
		}
		if err != nil {
			fail(http.StatusInternalServerError, err.Error())
			return
		}
		var buf bytes.Buffer
		if err := appendData(&buf, tl); err != nil {
			fail(http.StatusInternalServerError, err.Error())
			return
		}
		w.Write(buf.Bytes())
	})
	return mux
}
