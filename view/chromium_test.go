package view_test

import (
	"bytes"
	"context"
	"html"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
	"github.com/svmc/svmc/view"
)

// These tests load the page in headless Chromium and read back what its
// script drew: the script writes the number of lanes, bars, waiting bars,
// measured-interval bars and event ticks it drew into data-* attributes of
// the footer, and counts the lanes whose canvas rows hold the pixels of a
// bar, and those that hold the measured intervals' colour. .ci/setup.sh
// installs Chromium (Debian package chromium).

func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (.ci/setup.sh installs the Debian package chromium)")
	return ""
}

// render writes the page of tl, loads it (with the address fragment hash)
// and returns the DOM after the script ran.
func render(t *testing.T, tl *view.Timeline, hash string) string {
	t.Helper()
	bin := chromium(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "view.html")
	if err := os.WriteFile(path, page(t, tl), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1400,900", "--dump-dom",
		"file://"+path+hash)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	t.Logf("chromium loaded a %d-interval page in %v", len(tl.Intervals), time.Since(start).Round(time.Millisecond))
	return string(out)
}

var footerRE = regexp.MustCompile(`<footer id="status"([^>]*)>([^<]*)</footer>`)
var attrRE = regexp.MustCompile(`data-([a-z-]+)="([^"]*)"`)

// drawn returns the footer's data-* attributes.
func drawn(t *testing.T, dom string) map[string]int {
	t.Helper()
	m := footerRE.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no status footer in the DOM:\n%.2000s", dom)
	}
	got := map[string]int{}
	for _, a := range attrRE.FindAllStringSubmatch(m[1], -1) {
		if a[1] == "source-line" {
			continue // a file:line, read by the source view's test
		}
		n, err := strconv.Atoi(a[2])
		if err != nil {
			t.Fatalf("data-%s=%q", a[1], a[2])
		}
		got[a[1]] = n
	}
	if got["ready"] != 1 {
		t.Fatalf("the page's script did not finish drawing: footer %q", m[0])
	}
	return got
}

// lanesWithBars is the number of processors with at least one interval
// for which keep is true.
func lanesWithBars(tl *view.Timeline, keep func(view.Kind) bool) int {
	seen := map[int]bool{}
	for i := range tl.Intervals {
		if keep(tl.Intervals[i].Kind) {
			seen[tl.Intervals[i].Proc] = true
		}
	}
	return len(seen)
}

func anyKind(view.Kind) bool { return true }

func checkDrawn(t *testing.T, tl *view.Timeline, got map[string]int) {
	t.Helper()
	want := map[string]int{
		"lanes": tl.Procs, "bars": len(tl.Intervals), "waits": tl.Waits(), "measures": tl.Measures(),
		"events": len(tl.Instants), "painted-lanes": lanesWithBars(tl, anyKind),
		"measure-lanes": lanesWithBars(tl, view.Kind.IsMeasure), "messages": len(tl.Messages), "ready": 1,
		"header-overlaps": 0, // the time range once wrapped over the buttons
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("drawn %s = %d, want %d", k, got[k], v)
		}
	}
}

func TestChromiumExample31(t *testing.T) {
	tl := buildFile(t, fixture("ex31.sddf"))
	checkDrawn(t, tl, drawn(t, render(t, tl, "")))
}

// TestChromiumMessages: the halo exchange's messages are drawn as lines,
// every one of them in the whole-run window.
func TestChromiumMessages(t *testing.T) {
	tl := buildFile(t, fixture("halo.sddf"))
	if len(tl.Messages) == 0 {
		t.Fatal("no messages in the halo trace")
	}
	checkDrawn(t, tl, drawn(t, render(t, tl, "")))
}

func TestChromiumJacobi(t *testing.T) {
	tl := buildFile(t, fixture("jacobi.sddf"))
	tl.Program = "github.com/svmc/svmc/examples/jacobi" // a long title, as svmc run writes it
	checkDrawn(t, tl, drawn(t, render(t, tl, "")))
}

func TestChromiumSyncKinds(t *testing.T) {
	data, err := tracetest.Sync2().Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	checkDrawn(t, tl, drawn(t, render(t, tl, "")))
}

// TestChromiumMeasured: measured intervals are drawn as bars of their own
// colour in the lanes of the processors that made them.
func TestChromiumMeasured(t *testing.T) {
	data, err := tracetest.Measured().Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	got := drawn(t, render(t, tl, ""))
	checkDrawn(t, tl, got)
	if got["measures"] != 6 || got["measure-lanes"] != 2 {
		t.Errorf("drew %d measured intervals in %d lanes, want 6 in 2", got["measures"], got["measure-lanes"])
	}
}

// TestChromiumMeasureTooltip: a measured interval's tooltip names it and
// shows its records with level and name.
func TestChromiumMeasureTooltip(t *testing.T) {
	data, err := tracetest.Measured().Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	idx := -1
	for i := range tl.Intervals {
		if tl.Intervals[i].Kind == view.KindMeasure && tl.Sites[tl.Intervals[i].Site].Name == "solve" {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatal("no measured interval solve")
	}
	dom := render(t, tl, "#tip="+strconv.Itoa(idx))
	m := tipRE.FindStringSubmatch(dom)
	if m == nil || strings.Contains(m[1], "hidden") {
		t.Fatalf("no tooltip shown")
	}
	text := html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[2], " "))
	for _, want := range []string{"solve", "measured interval", "P0", "14.000 µs", `MeasureStart("solve"), level 1`,
		`measure-start { node 0, clock 5.000, level 1, name "solve" }`, `measure-finish { node 0, clock 19.000, level 1, name "solve" }`} {
		if !strings.Contains(text, want) {
			t.Errorf("tooltip lacks %q:\n%s", want, text)
		}
	}
}

// TestChromiumWindow opens the page on a part of the run and checks that
// exactly the intervals and events that overlap it are drawn (the script
// finds them by binary search per row).
func TestChromiumWindow(t *testing.T) {
	tl := buildFile(t, fixture("jacobi.sddf"))
	span := tl.End - tl.Start
	a, b := span*0.4, span*0.45
	var bars, waits, events int
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		s, e := iv.Start-tl.Start, iv.End-tl.Start
		if e >= a && s <= b {
			bars++
			if iv.Kind.IsWait() {
				waits++
			}
		}
	}
	for i := range tl.Instants {
		if x := tl.Instants[i].Time - tl.Start; x >= a && x <= b {
			events++
		}
	}
	if bars == 0 || bars > len(tl.Intervals)/4 {
		t.Fatalf("%d of %d intervals in the window: pick another", bars, len(tl.Intervals))
	}
	// The page rounds times to nanoseconds; keep the window's ends off
	// the intervals' ends.
	hash := "#window=" + strconv.FormatFloat(a, 'f', 4, 64) + "," + strconv.FormatFloat(b, 'f', 4, 64)
	got := drawn(t, render(t, tl, hash))
	if got["bars"] != bars || got["waits"] != waits || got["events"] != events {
		t.Errorf("window [%.3f, %.3f] µs: drew %d bars (%d waits), %d events; want %d (%d), %d",
			a, b, got["bars"], got["waits"], got["events"], bars, waits, events)
	}
}

var tipRE = regexp.MustCompile(`(?s)<div id="tip"([^>]*)>(.*?)</div></section>`)

// TestChromiumTooltip shows the tooltip of the first pdo of Example 3.1 as
// hovering would and checks that it names the construct, its source line
// and its records.
func TestChromiumTooltip(t *testing.T) {
	tl := buildFile(t, fixture("ex31.sddf"))
	idx := -1
	for i := range tl.Intervals {
		if tl.Intervals[i].Kind == view.KindPDO {
			idx = i
			break
		}
	}
	iv := &tl.Intervals[idx]
	dom := render(t, tl, "#tip="+strconv.Itoa(idx))
	m := tipRE.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no tooltip in the DOM")
	}
	if strings.Contains(m[1], "hidden") {
		t.Fatalf("the tooltip is hidden: %q", m[0])
	}
	text := html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[2], " "))
	site := &tl.Sites[iv.Site]
	for _, want := range []string{site.Name, site.Where(), site.Text, "P" + strconv.Itoa(iv.Proc),
		"trace-region-start { node " + strconv.Itoa(iv.Proc) + ", clock " + strconv.FormatFloat(iv.Clock0, 'f', 3, 64),
		"trace-region-stop", "type 4"} {
		if !strings.Contains(text, want) {
			t.Errorf("tooltip lacks %q:\n%s", want, text)
		}
	}
}

// TestChromiumLarge: a page of 1e5 intervals opens and draws them all.
func TestChromiumLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large page: not in -short")
	}
	data, err := tracetest.Lanes(4, 8334).Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	checkDrawn(t, tl, drawn(t, render(t, tl, "")))
}

// TestChromiumEventTooltip: an event's tooltip shows its record.
func TestChromiumEventTooltip(t *testing.T) {
	tl := buildFile(t, fixture("ex31.sddf"))
	idx := -1
	for i := range tl.Instants {
		if tl.Instants[i].Name == "template-info" {
			idx = i
			break
		}
	}
	if idx < 0 {
		t.Fatal("no template-info in the fixture")
	}
	dom := render(t, tl, "#tip=e"+strconv.Itoa(idx))
	m := tipRE.FindStringSubmatch(dom)
	if m == nil || strings.Contains(m[1], "hidden") {
		t.Fatalf("no tooltip shown")
	}
	text := html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[2], " "))
	in := &tl.Instants[idx]
	site := &tl.Sites[in.Site]
	for _, want := range []string{"template-info { clock " + strconv.FormatFloat(in.Clock, 'f', 3, 64), "template id=", "template shape=",
		site.Where(), site.Text} {
		if !strings.Contains(text, want) {
			t.Errorf("tooltip lacks %q:\n%s", want, text)
		}
	}
}

// TestChromiumMarks: errors of a checker are drawn on the lanes of their
// processors, at the call of their line.
func TestChromiumMarks(t *testing.T) {
	tl := buildFile(t, fixture("halo.sddf"))
	tl.MarkErrors([]view.Error{{Class: "nonpaired send", Message: "test", File: "main.go", Line: 45, Procs: []int{1, 2}}})
	if len(tl.Marks) != 2 {
		t.Fatalf("marks %+v", tl.Marks)
	}
	for _, m := range tl.Marks {
		found := false
		for i := range tl.Intervals {
			iv := &tl.Intervals[i]
			if iv.Proc == m.Proc && iv.Start == m.Time && tl.Sites[iv.Site].Line == 45 {
				found = true
			}
		}
		if !found {
			t.Errorf("mark %+v is at no call of line 45 on its lane", m)
		}
	}
	if got := drawn(t, render(t, tl, "")); got["marks"] != 2 {
		t.Errorf("drew %d marks, want 2", got["marks"])
	}
}

// TestChromiumMerged: two runs on one page (svmc diff --format html): the
// lanes of both, named A P0.. and B P0.., every bar, event and message of
// each, both from time 0, and the comparison in the side panel.
func TestChromiumMerged(t *testing.T) {
	a, b := buildFile(t, fixture("ex31.sddf")), buildFile(t, fixture("halo.sddf"))
	m := view.Merge(a, b, "svmc diff\n  the runs part first on processor 0")
	if m.Procs != a.Procs+b.Procs || len(m.Intervals) != len(a.Intervals)+len(b.Intervals) || len(m.Messages) != len(b.Messages) {
		t.Fatalf("merged: %d lanes, %d intervals, %d messages", m.Procs, len(m.Intervals), len(m.Messages))
	}
	if m.Start != 0 || m.End != max(a.End-a.Start, b.End-b.Start) {
		t.Errorf("merged time axis %v .. %v, want 0 .. the longer run", m.Start, m.End)
	}
	for _, iv := range m.Intervals {
		if iv.Start < 0 {
			t.Fatalf("an interval of lane %d starts at %v, before its run", iv.Proc, iv.Start)
		}
	}
	dom := render(t, m, "")
	got := drawn(t, dom)
	checkDrawn(t, m, got)
	if got["named-lanes"] != m.Procs {
		t.Errorf("%d lanes drawn with their run's names, want %d", got["named-lanes"], m.Procs)
	}
	for _, want := range []string{"<title>svmc diff: ", `<pre id="note">svmc diff`, "<th>A P3</th>", "<th>B P0</th>"} {
		if !strings.Contains(dom, want) {
			t.Errorf("no %q in the page", want)
		}
	}
}

var (
	rowRE     = regexp.MustCompile(`<tr ([^>]*data-[a-z]+="[^"]*"[^>]*)>`)
	rowAttrRE = regexp.MustCompile(`data-([a-z-]+)="([^"]*)"`)
)

// rows returns the data-* attributes of the rows of the element with the
// given id (a table the script wrote).
func rows(t *testing.T, dom, id string) []map[string]string {
	t.Helper()
	i := strings.Index(dom, `id="`+id+`"`)
	if i < 0 {
		return nil
	}
	end := strings.Index(dom[i:], "</table>")
	if end < 0 {
		t.Fatalf("table %s not closed", id)
	}
	var out []map[string]string
	for _, m := range rowRE.FindAllStringSubmatch(dom[i:i+end], -1) {
		r := map[string]string{}
		for _, a := range rowAttrRE.FindAllStringSubmatch(m[1], -1) {
			r[a[1]] = a[2]
		}
		out = append(out, r)
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return x
}

// TestChromiumSelection selects a part of the run as shift+drag does and
// compares the statistics the page computed with view.SummarizeWindow:
// per processor busy, waiting, idle and messages, every region and wait
// row it listed (to the page's nanosecond rounding per interval).
func TestChromiumSelection(t *testing.T) {
	for _, name := range []string{"jacobi.sddf", "halo.sddf"} {
		t.Run(name, func(t *testing.T) {
			tl := buildFile(t, fixture(name))
			span := tl.End - tl.Start
			a, b := span*0.3, span*0.55
			a, b = math.Round(a*1e4)/1e4, math.Round(b*1e4)/1e4
			hash := "#select=" + strconv.FormatFloat(a, 'f', 4, 64) + "," + strconv.FormatFloat(b, 'f', 4, 64)
			dom := render(t, tl, hash)
			if got := drawn(t, dom); got["selection"] != 1 {
				t.Fatalf("no selection shown (footer %v)", got)
			}
			want := view.SummarizeWindow(tl, tl.Start+a, tl.Start+b, 1<<30)
			tol := 1e-3 * float64(len(tl.Intervals)+1)
			procs := rows(t, dom, "sel-procs")
			if len(procs) != tl.Procs {
				t.Fatalf("%d processor rows, want %d", len(procs), tl.Procs)
			}
			sent := 0
			for p, r := range procs {
				w := want.PerProc[p]
				for k, v := range map[string]float64{"busy": w.Busy, "wait": w.Wait, "idle": w.Idle} {
					if math.Abs(num(t, r[k])-v) > tol {
						t.Errorf("P%d %s: page %s µs, SummarizeWindow %.3f µs", p, k, r[k], v)
					}
				}
				if r["sent"] != strconv.Itoa(w.Sent) || r["recv"] != strconv.Itoa(w.Received) || r["sent-bytes"] != strconv.FormatInt(w.SentBytes, 10) {
					t.Errorf("P%d messages: page %s out (%s B), %s in; want %d (%d B), %d", p, r["sent"], r["sent-bytes"], r["recv"], w.Sent, w.SentBytes, w.Received)
				}
				sent += w.Sent
			}
			for _, tab := range []struct {
				id   string
				want []view.SiteTotal
			}{{"sel-top", want.Top}, {"sel-waits", want.TopWaits}} {
				got := rows(t, dom, tab.id)
				if len(got) != min(len(tab.want), 10) {
					t.Errorf("%s: %d rows, want %d", tab.id, len(got), min(len(tab.want), 10))
				}
				byKey := map[string]view.SiteTotal{}
				for _, st := range tab.want {
					byKey[strconv.Itoa(st.Site)+":"+strconv.Itoa(int(st.Kind))] = st
				}
				for i, r := range got {
					st, ok := byKey[r["site"]+":"+r["kind"]]
					if !ok || math.Abs(num(t, r["us"])-st.Time) > tol || r["calls"] != strconv.Itoa(st.Calls) {
						t.Errorf("%s row %d: site %s kind %s, %s calls, %s µs; SummarizeWindow has %+v", tab.id, i, r["site"], r["kind"], r["calls"], r["us"], st)
					}
					if i > 0 && num(t, r["us"]) > num(t, got[i-1]["us"]) {
						t.Errorf("%s: row %d (%s µs) after a shorter one", tab.id, i, r["us"])
					}
				}
			}
			t.Logf("[%.3f, %.3f] µs: %d region rows, %d wait rows, %d messages sent", a, b, len(want.Top), len(want.TopWaits), sent)
		})
	}
}

// TestChromiumSourceView: the source view lists the annotated lines of the
// file with the most time; picking a line outlines exactly the bars of its
// sites, and a click on a bar picks its line.
func TestChromiumSourceView(t *testing.T) {
	tl := buildFile(t, fixture("jacobi.sddf"))
	files := tl.Source()
	best, bestLine := -1, view.LineStat{}
	for i, f := range files {
		for _, l := range f.Lines {
			if l.Time > bestLine.Time {
				best, bestLine = i, l
			}
		}
	}
	if best < 0 {
		t.Fatal("no line with time in the source view")
	}
	f := files[best]
	where := f.Name + ":" + strconv.Itoa(bestLine.Line)
	lit := 0
	for i := range tl.Intervals {
		if slices.Contains(bestLine.Sites, tl.Intervals[i].Site) {
			lit++
		}
	}
	dom := render(t, tl, "#line="+where)
	got := drawn(t, dom)
	if got["source-rows"] != len(f.Lines) || got["highlighted"] != lit || lit == 0 {
		t.Errorf("%s picked: %d annotated rows and %d bars outlined; want %d and %d", where, got["source-rows"], got["highlighted"], len(f.Lines), lit)
	}
	src := rows(t, dom, "src-lines")
	picked := 0
	for _, r := range src {
		if r["line"] == strconv.Itoa(bestLine.Line) {
			picked++
			if math.Abs(num(t, r["us"])-bestLine.Time) > 1e-3 {
				t.Errorf("%s: the page shows %s µs, Source says %.3f", where, r["us"], bestLine.Time)
			}
		}
	}
	if picked != 1 || !strings.Contains(dom, `class="hot sel" id="L`+strconv.Itoa(bestLine.Line)+`"`) {
		t.Errorf("%s: %d rows of it, selected: %v", where, picked, strings.Contains(dom, `class="hot sel"`))
	}
	// A click on a pdo's bar picks the pdo's line.
	pdo := -1
	for i := range tl.Intervals {
		if tl.Intervals[i].Kind == view.KindPDO {
			pdo = i
			break
		}
	}
	want := tl.Sites[tl.Intervals[pdo].Site].Where()
	m := regexp.MustCompile(`data-source-line="([^"]*)"`).FindStringSubmatch(render(t, tl, "#pick="+strconv.Itoa(pdo)))
	if m == nil || m[1] != want {
		t.Errorf("a click on pdo interval %d picked %v, want %s", pdo, m, want)
	}
}

// TestChromiumReportTab: a page with a report (svmc report --format html)
// opens on the report's tab; picking a source line turns to the source.
func TestChromiumReportTab(t *testing.T) {
	tl := buildFile(t, fixture("halo.sddf"))
	var buf strings.Builder
	if err := view.WritePage(&buf, tl, view.PageOptions{Title: "svmc report: halo", Report: `<div class="svmc-report"><h1 id="rep">the report</h1></div>`}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(hash string) (map[string]int, string) {
		out, err := exec.Command(chromium(t), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1400,900", "--dump-dom", "file://"+path+hash).Output()
		if err != nil {
			t.Fatal(err)
		}
		return drawn(t, string(out)), string(out)
	}
	got, dom := load("")
	checkDrawn(t, tl, got)
	if got["tab"] != 1 || !strings.Contains(dom, `<div id="report-body"><div class="svmc-report"><h1 id="rep">the report</h1></div></div>`) {
		t.Errorf("the page does not open on its report (tab %d)", got["tab"])
	}
	where := ""
	for _, s := range tl.Sites {
		if s.File != "" {
			where = s.Where()
			break
		}
	}
	if got, _ := load("#line=" + where); got["tab"] != 0 {
		t.Errorf("picking %s left the report's tab open", where)
	}
}

// TestChromiumGCPauses: the collector's pauses (gc-pause records) are
// shaded across the lanes, not drawn as events of processor 0, and a
// selection counts those it meets with their time in it.
func TestChromiumGCPauses(t *testing.T) {
	s := tracetest.Lanes(2, 4)
	s.GCPause(3, 2, 7)
	s.GCPause(30, 5, 8)
	data, err := s.Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	if len(tl.GC) != 2 || tl.GC[1] != (view.GCPause{Start: 30, Dur: 5, N: 8}) {
		t.Fatalf("pauses %+v, want the two written", tl.GC)
	}
	for _, in := range tl.Instants {
		if in.Tag == trace.TagGCPause {
			t.Fatalf("a gc-pause record became an event of P%d", in.Proc)
		}
	}
	// A selection from 4 µs after the start to 32 µs: 1 µs of the first
	// pause and 2 µs of the second.
	a, b := 4-tl.Start, 32-tl.Start
	hash := "#select=" + strconv.FormatFloat(a, 'f', 3, 64) + "," + strconv.FormatFloat(b, 'f', 3, 64)
	dom := render(t, tl, hash)
	got := drawn(t, dom)
	checkDrawn(t, tl, got)
	if got["gc"] != 2 {
		t.Errorf("%d pauses drawn, want 2", got["gc"])
	}
	w := view.SummarizeWindow(tl, 4, 32, 10)
	m := regexp.MustCompile(`id="sel-gc" data-gc-count="(\d+)" data-gc-us="([0-9.]+)"`).FindStringSubmatch(dom)
	if w.GCPauses != 2 || w.GCTime != 3 || m == nil || m[1] != "2" || m[2] != "3.000" {
		t.Errorf("selection [4, 32] µs: page %v, SummarizeWindow %d pauses %.3f µs; want 2 and 3 µs", m, w.GCPauses, w.GCTime)
	}
}

// stateAt is the test's own model of the global state after the first k
// steps: per processor the innermost open interval (-1 none).
func stateAt(tl *view.Timeline, k int) []int {
	open := make([][]int, tl.Procs)
	for _, st := range tl.Steps[:k] {
		if st.Interval < 0 {
			continue
		}
		p := tl.Intervals[st.Interval].Proc
		if st.Open {
			open[p] = append(open[p], st.Interval)
		} else if i := slices.Index(open[p], st.Interval); i >= 0 {
			open[p] = slices.Delete(open[p], i, i+1)
		}
	}
	top := make([]int, tl.Procs)
	for p := range top {
		top[p] = -1
		if n := len(open[p]); n > 0 {
			top[p] = open[p][n-1]
		}
	}
	return top
}

var stateRowRE = regexp.MustCompile(`<tr data-proc="(\d+)" data-state="([a-z]+)" data-site="(-?\d+)" data-whom="([0-9,]*)"`)

// TestChromiumStates steps the page's global states (#step=K) at points of
// the halo exchange and of a trace whose clocks the order repaired, and
// compares each processor's state, site and partners, the messages in
// flight and the repairs with a model of its own built from
// Timeline.Steps.
func TestChromiumStates(t *testing.T) {
	halo := buildFile(t, fixture("halo.sddf"))
	skew := tracetest.New(2)
	skew.Start(0, 0, 1, 0, trace.RegionProgram)
	skew.Sync(0, 12, trace.TagWaitBarrierStart, 1, tracetest.DirBar)
	skew.Sync(0, 13, trace.TagWaitBarrierStop, 1, tracetest.DirBar)
	skew.Stop(0, 20, 1, 0, trace.RegionProgram)
	skew.Start(1, 0, 1, 0, trace.RegionProgram)
	skew.Sync(1, 5, trace.TagWaitBarrierStart, 1, tracetest.DirBar)
	skew.Sync(1, 10, trace.TagWaitBarrierStop, 1, tracetest.DirBar) // before P0 arrived at 12
	skew.Stop(1, 20, 1, 0, trace.RegionProgram)
	skewed := buildBytes(t, skew.MustEncode(t, trace.Binary, tracetest.Prog()), view.Options{})
	// A psection in each section of a psection: processors 0 and 1 are
	// one section's team, 2 the other's; each team's barrier at the
	// inner psection's end waits for its own members only.
	nest := tracetest.New(3)
	for p, team := range [][]int{{0, 1}, {0, 1}, {2}} {
		const m = tracetest.SubMain
		in := 10 + 5*float64(p)
		nest.Start(p, 1, m, 0, trace.RegionProgram)
		nest.Start(p, 2, m, tracetest.DirPSec, trace.RegionPSection)
		nest.Start(p, 3, m, tracetest.DirSec, trace.RegionSection)
		nest.APSInfo(p, 4, team...)
		nest.Sync(p, in, trace.TagWaitBarrierStart, m, tracetest.DirBar)
		nest.Sync(p, 22, trace.TagWaitBarrierStop, m, tracetest.DirBar)
		nest.Stop(p, 30, m, tracetest.DirSec, trace.RegionSection)
		nest.Stop(p, 40, m, tracetest.DirPSec, trace.RegionPSection)
		nest.Stop(p, 50, m, 0, trace.RegionProgram)
	}
	teams := buildBytes(t, nest.MustEncode(t, trace.Binary, tracetest.Prog()), view.Options{})
	var teamKs []int // after each opening of a team's barrier wait
	for k, st := range teams.Steps {
		if st.Interval >= 0 && st.Open && teams.Intervals[st.Interval].Team != nil {
			teamKs = append(teamKs, k+1)
		}
	}
	if len(teamKs) != 3 {
		t.Fatalf("%d barrier waits with a team, want 3", len(teamKs))
	}
	for _, c := range []struct {
		name string
		tl   *view.Timeline
		ks   []int
	}{{"halo", halo, []int{0, 17, 30, 61, len(halo.Steps)}}, {"skewed", skewed, []int{3, 5}}, {"teams", teams, teamKs}} {
		tl := c.tl
		if want := 2*len(tl.Intervals) + len(tl.Instants); len(tl.Steps) != want {
			t.Fatalf("%s: %d steps, want %d (every opening, closing and instant once)", c.name, len(tl.Steps), want)
		}
		repairs := 0
		for _, st := range tl.Steps {
			switch {
			case st.Interval < 0:
				if in := tl.Instants[st.Instant]; math.Abs(in.Clock-in.Time) >= 5e-4 {
					repairs++
				}
			case st.Open:
				if iv := tl.Intervals[st.Interval]; math.Abs(iv.Clock0-iv.Start) >= 5e-4 {
					repairs++
				}
			default:
				if iv := tl.Intervals[st.Interval]; math.Abs(iv.Clock1-iv.End) >= 5e-4 {
					repairs++
				}
			}
		}
		for _, k := range c.ks {
			dom := render(t, tl, "#step="+strconv.Itoa(k))
			got := drawn(t, dom)
			top := stateAt(tl, k)
			now := math.Inf(-1)
			if k > 0 {
				st := tl.Steps[k-1]
				switch {
				case st.Interval < 0:
					now = tl.Instants[st.Instant].Time
				case st.Open:
					now = tl.Intervals[st.Interval].Start
				default:
					now = tl.Intervals[st.Interval].End
				}
			}
			flying := 0
			for _, m := range tl.Messages {
				if m.Send <= now && m.Recv > now {
					flying++
				}
			}
			if got["step"] != k || got["steps"] != len(tl.Steps) || got["inflight"] != flying || got["repairs"] != repairs {
				t.Errorf("%s step %d: page at step %d of %d, %d messages in flight, %d repairs; want %d of %d, %d, %d",
					c.name, k, got["step"], got["steps"], got["inflight"], got["repairs"], k, len(tl.Steps), flying, repairs)
			}
			rows := stateRowRE.FindAllStringSubmatch(dom, -1)
			if len(rows) != tl.Procs {
				t.Fatalf("%s step %d: %d processor rows, want %d", c.name, k, len(rows), tl.Procs)
			}
			for _, r := range rows {
				p, _ := strconv.Atoi(r[1])
				i := top[p]
				wantSite, wantState, wantWhom := "-1", "idle", ""
				if i >= 0 {
					iv := tl.Intervals[i]
					wantSite = strconv.Itoa(iv.Site)
					var whom []string
					switch {
					case iv.Kind.IsWait():
						wantState = "wait"
						lock := iv.Kind == view.KindLockWait || iv.Kind == view.KindCriticalWait
						for q := range tl.Procs {
							if q == p || iv.Team != nil && !slices.Contains(iv.Team, q) {
								continue
							}
							there := false
							for _, j := range openOf(tl, k, q) {
								jv := tl.Intervals[j]
								there = there || jv.Site == iv.Site && (lock && jv.Kind.IsHeld() || !lock && jv.Kind.IsWait())
							}
							if there == lock {
								whom = append(whom, strconv.Itoa(q))
							}
						}
					case iv.Kind.IsMsg():
						wantState = "msg"
						if iv.Peer >= 0 {
							whom = append(whom, strconv.Itoa(iv.Peer))
						}
					case iv.Kind.IsHeld():
						wantState = "held"
					case iv.Kind.IsMeasure():
						wantState = "measure"
					default:
						wantState = "region"
					}
					wantWhom = strings.Join(whom, ",")
				} else if k == len(tl.Steps) {
					wantState = "done"
				}
				if r[2] != wantState || r[3] != wantSite || r[4] != wantWhom {
					t.Errorf("%s step %d P%d: page %s at site %s with [%s]; want %s at %s with [%s]", c.name, k, p, r[2], r[3], r[4], wantState, wantSite, wantWhom)
				}
			}
			if c.name == "skewed" && k == 5 && !strings.Contains(dom, `data-repaired="1"`) {
				t.Errorf("skewed step 5 (P1 leaves the barrier it left by its clock before P0 came) is not marked repaired")
			}
		}
	}
}

// openOf lists the intervals processor p has open after k steps.
func openOf(tl *view.Timeline, k, p int) []int {
	var open []int
	for _, st := range tl.Steps[:k] {
		if st.Interval < 0 || tl.Intervals[st.Interval].Proc != p {
			continue
		}
		if st.Open {
			open = append(open, st.Interval)
		} else if i := slices.Index(open, st.Interval); i >= 0 {
			open = slices.Delete(open, i, i+1)
		}
	}
	return open
}

// renderURL loads a served page (after its fetches, up to 10 s of the
// page's time) and returns the DOM.
func renderURL(t *testing.T, url string) string {
	t.Helper()
	bin := chromium(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1400,900", "--virtual-time-budget=10000",
		"--dump-dom", url)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// TestChromiumLOD: a large trace's page, served (svmc view --serve), draws
// the whole run from its summaries (a bar per bucket and row that has
// one, no interval), and zoomed in on a part of the run it fetches the
// records of that part and draws every interval that meets it, as many
// as the window Window builds has there.
func TestChromiumLOD(t *testing.T) {
	chromium(t)
	data := runsTrace(t, 3, 20000)
	l, err := view.BuildLOD(bytes.NewReader(data), int64(len(data)), "runs", view.Options{}, 512)
	if err != nil {
		t.Fatal(err)
	}
	l.Limit = 50_000 // the trace has about 370 000 records
	srv := httptest.NewServer(view.LODHandler(l))
	defer srv.Close()

	got := drawn(t, renderURL(t, srv.URL+"/"))
	cells := 0
	for _, ln := range l.Lanes {
		for _, row := range ln.Rows {
			for _, c := range row {
				if c.Kind >= 0 && c.Cover > 0 {
					cells++
				}
			}
		}
	}
	if got["detail"] != 0 || got["bars"] != 0 || got["lod-cells"] == 0 || got["lod-cells"] > cells || got["lanes"] != 3 {
		t.Errorf("the whole run: %v; want summaries only (at most %d bars of them), 3 lanes", got, cells)
	}

	a, b := 250_000.0, 250_400.0 // µs from the start of the run
	got = drawn(t, renderURL(t, srv.URL+"/#window="+strconv.FormatFloat(a, 'f', -1, 64)+","+strconv.FormatFloat(b, 'f', -1, 64)))
	win, err := l.Window(l.Start+a, l.Start+b, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, iv := range win.Intervals {
		if iv.End >= l.Start+a && iv.Start <= l.Start+b {
			want++
		}
	}
	if got["detail"] != 1 || got["bars"] != want || want == 0 {
		t.Errorf("zoomed in on [%v, %v] µs: %v; want the detail drawn, %d bars", a, b, got, want)
	}
}
