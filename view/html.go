package view

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"
	"strconv"

	"github.com/svmc/svmc/analysis"
)

// The page is one file: the style, the summary panel (rendered here), the
// data (appendData) and the script that draws the lanes on a canvas. It
// loads nothing: no network, no fonts, no libraries.

//go:embed assets/view.css
var pageCSS string

//go:embed assets/view.js
var pageJS string

// TopRows is the number of rows of the summary's region and wait tables.
const TopRows = 10

// WriteHTML writes the timeline as one self-contained HTML page.
func WriteHTML(w io.Writer, tl *Timeline) error { return WritePage(w, tl, PageOptions{}) }

// PageOptions add to the page.
type PageOptions struct {
	// Title replaces the page's title.
	Title string
	// Report is an HTML fragment (analysis.WriteHTMLFragment) shown in a
	// tab beside the source view, open when the page loads: svmc report
	// --format html is this page.
	Report template.HTML
}

// WritePage writes the timeline as one self-contained HTML page with what
// opt adds.
func WritePage(w io.Writer, tl *Timeline, opt PageOptions) error {
	var buf bytes.Buffer
	sum := Summarize(tl, TopRows)
	ttl := opt.Title
	if ttl == "" {
		ttl = title(tl)
	}
	if err := pageHead.Execute(&buf, headData{Title: ttl, CSS: template.CSS(pageCSS)}); err != nil {
		return err
	}
	sd := sideData(tl, sum)
	sd.Report = opt.Report
	if err := pageSide.Execute(&buf, sd); err != nil {
		return err
	}
	buf.WriteString(`<script id="svmc-data" type="application/json">`)
	if err := appendData(&buf, tl); err != nil {
		return err
	}
	buf.WriteString("</script>\n<script>\n")
	buf.WriteString(pageJS)
	buf.WriteString("</script>\n</body>\n</html>\n")
	_, err := w.Write(buf.Bytes())
	return err
}

func title(tl *Timeline) string {
	if tl.Note != "" {
		return "svmc diff: " + tl.Trace // two runs (Merge)
	}
	if tl.Program != "" {
		return "svmc view: " + tl.Program
	}
	return "svmc view: " + tl.Trace
}

type headData struct {
	Title string
	CSS   template.CSS
}

var pageHead = template.Must(template.New("head").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
{{.CSS}}
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<div id="tools">
<button id="zoom-out" title="zoom out (-)">−</button>
<button id="zoom-in" title="zoom in (+)">+</button>
<button id="zoom-fit" title="show the whole run (0)">fit</button>
<button id="states" title="step through the global states of the consistent order (VISTOP)">states</button>
<span id="range"></span>
<span class="hint">wheel: zoom · drag: pan · shift+drag: statistics of a part · click a bar: its source line · double-click: zoom to it</span>
</div>
</header>
<main>
<section id="timeline"><canvas id="canvas"></canvas><div id="tip" hidden></div></section>
`))

type side struct {
	Trace, Program    string
	Procs             int
	Records           int64
	RunTime           string
	Order             string
	Warnings          []string
	PerProc           []sideProc
	Top, TopWaits     []sideRow
	Measures          []sideRow
	Legend            []sideKind
	Intervals, Events int
	Ended             string
	Abnormal          bool
	Note              string
	Report            template.HTML
	GC                string // the collector's pauses, "" without gc-pause records
	GoLanes           int    // lanes of goroutines among the Procs lanes
	LOD               string // a large trace's page (WriteLODPage): what it draws
}

type sideProc struct {
	Proc                      int
	Name                      string // "P0", or the lane's name
	Busy, Wait, Idle          string
	BusyPct, WaitPct, IdlePct string // widths of the bar, CSS percentages
}

type sideRow struct {
	Name, Kind, Where, Text string
	Calls                   int
	Time, Share             string
}

type sideKind struct {
	Name  string
	Color template.CSS
	Style string
}

func sideData(tl *Timeline, s *Summary) side {
	d := side{Trace: tl.Trace, Program: tl.Program, Procs: tl.Procs, Records: tl.Records, Note: tl.Note,
		RunTime: analysis.Dur(s.RunTime), Warnings: tl.Warnings,
		Intervals: len(tl.Intervals), Events: len(tl.Instants)}
	o := tl.Order
	d.Order = "causally consistent; no clock corrected"
	if o.Violations > 0 {
		d.Order = "causally consistent; " + strconv.FormatInt(o.Violations, 10) + " records drawn later than their clock (up to " + analysis.Dur(o.MaxCorrection) + ")"
	}
	pct := func(x float64) string {
		if s.RunTime <= 0 {
			return "0%"
		}
		return strconv.FormatFloat(100*x/s.RunTime, 'f', 2, 64) + "%"
	}
	for _, p := range s.PerProc {
		name := "P" + strconv.Itoa(p.Proc)
		if p.Proc < len(tl.Lanes) {
			name = tl.Lanes[p.Proc]
		}
		d.PerProc = append(d.PerProc, sideProc{p.Proc, name, analysis.Dur(p.Busy), analysis.Dur(p.Wait), analysis.Dur(p.Idle),
			pct(p.Busy), pct(p.Wait), pct(p.Idle)})
	}
	total := s.RunTime * float64(max(tl.Procs, 1))
	row := func(st SiteTotal) sideRow {
		site := &tl.Sites[st.Site]
		share := "–"
		if total > 0 {
			share = strconv.FormatFloat(100*st.Time/total, 'f', 1, 64) + "%"
		}
		return sideRow{site.Name, st.Kind.String(), site.Where(), site.Text, st.Calls, analysis.Dur(st.Time), share}
	}
	for _, st := range s.Top {
		d.Top = append(d.Top, row(st))
	}
	for _, st := range s.TopWaits {
		d.TopWaits = append(d.TopWaits, row(st))
	}
	used := make([]bool, NumKinds)
	for i := range tl.Intervals {
		used[tl.Intervals[i].Kind] = true
	}
	for k := Kind(0); k < NumKinds; k++ {
		if !used[k] {
			continue
		}
		d.Legend = append(d.Legend, sideKind{k.String(), template.CSS(kinds[k].color), k.style()})
	}
	for _, st := range s.Measures {
		d.Measures = append(d.Measures, row(st))
	}
	d.GoLanes = tl.GoLanes()
	d.Procs -= d.GoLanes
	if len(tl.GC) > 0 {
		var tot, longest float64
		for _, g := range tl.GC {
			tot += g.Dur
			longest = max(longest, g.Dur)
		}
		d.GC = strconv.Itoa(len(tl.GC)) + " stop-the-world pauses, " + analysis.Dur(tot) + " (longest " + analysis.Dur(longest) + "); shaded across the lanes"
	}
	switch e := &tl.Ended; {
	case !e.Recorded:
		d.Ended = "not recorded (no trace-end record)"
	case e.Abnormal():
		d.Ended = e.Summary()
		d.Abnormal = true
	default:
		d.Ended = e.StatusName
		if e.Incomplete() {
			d.Ended = e.Summary()
		}
	}
	return d
}

var pageSide = template.Must(template.New("side").Parse(`<aside id="side">
<div id="state" hidden><h2>Global states</h2>
<div class="stctl"><button id="st-first" title="before the first event">«</button><button id="st-prev" title="previous step (,)">‹</button><button id="st-play" title="play">▶</button><button id="st-next" title="next step (.)">›</button><button id="st-last" title="the last step">»</button><button id="st-repair" title="the next event the order placed later than its clock">next repair</button></div>
<input type="range" id="st-slider" min="-1" max="0" value="-1" aria-label="step">
<div id="st-body"></div></div>
<div id="sel" hidden></div>
{{if .Note}}<h2>Comparison</h2>
<pre id="note">{{.Note}}</pre>
{{end}}<h2>Run</h2>
<table class="kv">
{{if .Program}}<tr><th>program</th><td>{{.Program}}</td></tr>{{end}}
<tr><th>trace</th><td>{{.Trace}}</td></tr>
<tr><th>processors</th><td>{{.Procs}}{{if .GoLanes}} and {{.GoLanes}} goroutine lanes (P<i>n</i>/g<i>k</i>: processor <i>n</i>'s goroutines){{end}}</td></tr>
<tr><th>run time</th><td id="run-time">{{.RunTime}}</td></tr>
<tr><th>records</th><td>{{.Records}}{{if not .LOD}} ({{.Intervals}} intervals, {{.Events}} events){{end}}</td></tr>
<tr><th>order</th><td>{{.Order}}</td></tr>
<tr><th>run end</th><td id="run-end"{{if .Abnormal}} class="abnormal"{{end}}>{{.Ended}}</td></tr>
{{if .GC}}<tr><th>collector</th><td id="gc">{{.GC}}</td></tr>{{end}}
</table>
{{range .Warnings}}<p class="warn">{{.}}</p>{{end}}
<h2>Legend</h2>
<ul class="legend">
{{range .Legend}}<li><span class="sw {{.Style}}" style="--c:{{.Color}}"></span>{{.Name}}</li>
{{end}}<li><span class="sw tick"></span>other record (event)</li>
</ul>
<h2>Processors</h2>
<table class="procs">
<tr><th></th><th>busy</th><th>waiting</th><th>idle</th><th></th></tr>
{{range .PerProc}}<tr><th>{{.Name}}</th><td>{{.Busy}}</td><td>{{.Wait}}</td><td>{{.Idle}}</td>
<td class="bar"><span class="busy" style="width:{{.BusyPct}}"></span><span class="wait" style="width:{{.WaitPct}}"></span><span class="idle" style="width:{{.IdlePct}}"></span></td></tr>
{{end}}</table>
<p class="note">busy: inside a region and not waiting; idle: outside every region. Share: of N × run time.</p>
{{if .LOD}}<h2>Large trace</h2>
<p class="note" id="lod-note">{{.LOD}}</p>
{{else}}<h2>Top regions</h2>
{{if .Top}}<table class="top">
<tr><th>region</th><th>calls</th><th>time</th><th title="share of N × run time">share</th></tr>
{{range .Top}}<tr title="{{.Kind}}{{if .Text}} · {{.Text}}{{end}}"><td>{{.Name}}<div class="where">{{.Kind}}{{if .Where}} · {{.Where}}{{end}}</div></td><td>{{.Calls}}</td><td>{{.Time}}</td><td>{{.Share}}</td></tr>
{{end}}</table>{{else}}<p class="note">no regions traced</p>{{end}}
<h2>Waiting</h2>
{{if .TopWaits}}<table class="top">
<tr><th>site</th><th>waits</th><th>time</th><th title="share of N × run time">share</th></tr>
{{range .TopWaits}}<tr title="{{.Kind}}{{if .Text}} · {{.Text}}{{end}}"><td>{{.Name}}<div class="where">{{.Kind}}{{if .Where}} · {{.Where}}{{end}}</div></td><td>{{.Calls}}</td><td>{{.Time}}</td><td>{{.Share}}</td></tr>
{{end}}</table>{{else}}<p class="note">no waiting traced</p>{{end}}{{end}}
{{if .Measures}}<h2>Measured intervals</h2>
<table class="top" id="measures">
<tr><th>interval</th><th>entries</th><th>time</th><th title="share of N × run time">share</th></tr>
{{range .Measures}}<tr title="{{.Text}}"><td>{{.Name}}<div class="where">{{.Kind}}</div></td><td>{{.Calls}}</td><td>{{.Time}}</td><td>{{.Share}}</td></tr>
{{end}}</table>{{end}}
</aside>
</main>
<section id="source"{{if .Report}} class="tall"{{end}}>
<div class="ptools">{{if .Report}}<button id="tab-report" class="tab on">Report</button><button id="tab-source" class="tab">Source</button>{{else}}<b>Source</b>{{end}} <select id="src-file" aria-label="file"{{if .Report}} hidden{{end}}></select> <span id="src-info"></span><button id="src-toggle" title="show or hide this panel">hide</button></div>
{{if .Report}}<div id="report-body">{{.Report}}</div>
{{end}}<div id="src-body"{{if .Report}} hidden{{end}}><table id="src-lines"></table></div>
</section>
<footer id="status">loading…</footer>
`))
