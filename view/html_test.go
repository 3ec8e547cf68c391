package view_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
	"github.com/svmc/svmc/view"
)

func page(t *testing.T, tl *view.Timeline) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := view.WriteHTML(&buf, tl); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pageData is the page's embedded data, decoded.
type pageData struct {
	Meta struct {
		Procs int     `json:"procs"`
		Span  float64 `json:"span"`
	} `json:"meta"`
	Kinds []struct {
		Name, Style string
	} `json:"kinds"`
	Sites []struct {
		N, W string
	} `json:"sites"`
	IV  [][]float64 `json:"iv"`
	In  [][]float64 `json:"in"`
	Rec []string    `json:"rec"`
}

var dataRE = regexp.MustCompile(`(?s)<script id="svmc-data" type="application/json">(.*?)</script>`)

func decodePage(t *testing.T, html []byte) (pageData, []byte) {
	t.Helper()
	m := dataRE.FindSubmatchIndex(html)
	if m == nil {
		t.Fatal("no svmc-data script in the page")
	}
	var d pageData
	if err := json.Unmarshal(html[m[2]:m[3]], &d); err != nil {
		t.Fatalf("the page's data is not JSON: %v", err)
	}
	rest := append(append([]byte{}, html[:m[2]]...), html[m[3]:]...)
	return d, rest
}

func TestPageSelfContained(t *testing.T) {
	tl := buildFile(t, fixture("ex31.sddf"))
	html := page(t, tl)
	d, rest := decodePage(t, html)
	if !bytes.HasPrefix(html, []byte("<!DOCTYPE html>")) {
		t.Error("the page does not start with a doctype")
	}
	// Nothing outside the data may make the browser fetch anything.
	for _, bad := range []string{"http://", "https://", "src=", "<link", "@import", "url(", "@font-face"} {
		if bytes.Contains(rest, []byte(bad)) {
			t.Errorf("the page contains %q: it must load nothing", bad)
		}
	}
	if d.Meta.Procs != 4 || len(d.IV) != len(tl.Intervals) || len(d.In) != len(tl.Instants) || len(d.Rec) > len(d.In) {
		t.Fatalf("data: %d procs, %d intervals, %d instants; timeline has %d, %d", d.Meta.Procs, len(d.IV), len(d.In), len(tl.Intervals), len(tl.Instants))
	}
	if len(d.Kinds) != int(view.NumKinds) || d.Kinds[view.KindImplicitBarrier].Style != "wait" || d.Kinds[view.KindPDO].Style != "region" {
		t.Errorf("kinds %+v", d.Kinds)
	}
	for i, v := range d.IV {
		iv := &tl.Intervals[i]
		if len(v) != 7 || int(v[0]) != iv.Proc || int(v[1]) != int(iv.Kind) || int(v[2]) != iv.Site || int(v[3]) != iv.Depth {
			t.Fatalf("iv[%d] = %v, interval %+v", i, v, iv)
		}
		if v[4] < 0 || v[5] < v[4] || v[5] > d.Meta.Span+1e-3 {
			t.Errorf("iv[%d] = %v outside [0, %v]", i, v, d.Meta.Span)
		}
	}
	// The summary panel is in the page itself.
	for _, want := range []string{"P3", "Top regions", "pdo fill", "main.go:30", "implicit barrier wait"} {
		if !bytes.Contains(rest, []byte(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestPageEscapes: names from the program information cannot break out of
// the page.
func TestPageEscapes(t *testing.T) {
	prog := tracetest.Prog()
	prog.Subprograms[0].Directives[0].Label = `</script><script>alert(1)</script>`
	prog.Subprograms[0].Regions[1].Label = prog.Subprograms[0].Directives[0].Label
	data, err := tracetest.Sync2().Encode(trace.Binary, prog)
	if err != nil {
		t.Fatal(err)
	}
	html := page(t, buildBytes(t, data, view.Options{}))
	if bytes.Contains(html, []byte("<script>alert")) {
		t.Fatal("a label from the program information made it into the page unescaped")
	}
	d, _ := decodePage(t, html)
	found := false
	for _, s := range d.Sites {
		found = found || strings.Contains(s.N, "</script>")
	}
	if !found {
		t.Error("the label did not survive the round trip through the page's data")
	}
}

// TestPageSize: the data stays compact, so that large traces open.
func TestPageSize(t *testing.T) {
	data, err := tracetest.Lanes(4, 8334).Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	if len(tl.Intervals) < 100000 {
		t.Fatalf("%d intervals, want 1e5", len(tl.Intervals))
	}
	html := page(t, tl)
	per := float64(len(html)) / float64(len(tl.Intervals))
	t.Logf("%d intervals: page of %d bytes, %.1f bytes per interval", len(tl.Intervals), len(html), per)
	if per > 40 {
		t.Errorf("%.1f bytes per interval; the data must stay compact", per)
	}
}

// TestEmptyTrace: a trace without records still makes a page (with empty
// lanes) and the browser draws it.
func TestEmptyTrace(t *testing.T) {
	data, err := tracetest.New(2).Encode(trace.ASCII, nil)
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	if tl.Procs != 2 || len(tl.Intervals) != 0 || tl.Start != 0 || tl.End != 0 {
		t.Fatalf("empty trace: %+v", tl)
	}
	d, _ := decodePage(t, page(t, tl))
	if d.Meta.Procs != 2 || len(d.IV) != 0 {
		t.Errorf("page data %+v", d.Meta)
	}
	if _, err := exec.LookPath("chromium"); err == nil {
		checkDrawn(t, tl, drawn(t, render(t, tl, "")))
	}
}
