package analysis

import (
	"html/template"
	"io"
	"strconv"
)

// WriteHTML writes the report as one self-contained HTML page: inline
// style, no scripts, nothing fetched from the network.
func WriteHTML(w io.Writer, r *Report) error {
	if _, err := io.WriteString(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>svmc report: "+
		template.HTMLEscapeString(r.Trace)+"</title></head><body style=\"margin:1.5em 2em\">\n"); err != nil {
		return err
	}
	if err := WriteHTMLFragment(w, r); err != nil {
		return err
	}
	_, err := io.WriteString(w, "</body></html>\n")
	return err
}

// WriteHTMLFragment writes the report as one element (a div of class
// svmc-report with its own scoped style) for a page that holds more, such
// as the view's (svmc report --format html).
func WriteHTMLFragment(w io.Writer, r *Report) error {
	return htmlTmpl.Execute(w, r)
}

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"dur":     Dur,
	"gcShare": func(ws *WaitStat) float64 { return ws.GC / max(ws.Total, 1e-9) },
	"pct":     pct,
	"f2":      func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) },
	"w":       func(part, total float64) string { return strconv.FormatFloat(100*ratio(part, total), 'f', 2, 64) + "%" },
	"add1":    func(i int) int { return i + 1 },
	"site":    siteName,
	"loop":    loopLabel,
	"reg":     regionLabel,
	"iter": func(n int64) string {
		if n < 0 {
			return "-"
		}
		return strconv.FormatInt(n, 10)
	},
	"iters": iterString,
	"procs": func(m *Model) []int {
		ps := make([]int, m.Procs)
		for i := range ps {
			ps[i] = i
		}
		return ps
	},
	"minsev":    func() string { return pct(MinSeverity) },
	"count":     count,
	"mlabel":    func(ms *MeasureStat) string { return measureLabel(ms.Level, ms.Name) },
	"slabel":    statLabel,
	"mean":      func(mp MeasureProc) float64 { return ratio(mp.Elapsed, float64(mp.Entries)) },
	"statsnote": func() string { return statsNote },
	"ratio":     ratio,
}).Parse(`<div class="svmc-report">
<style>
.svmc-report{font:14px/1.4 system-ui,sans-serif;color:#222}
.svmc-report h1{font-size:1.3em}.svmc-report h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #ccc;text-transform:none;letter-spacing:0;color:#222}
.svmc-report table{border-collapse:collapse;margin:.4em 0;width:auto}
.svmc-report th,.svmc-report td{padding:.15em .6em;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.svmc-report td.n,.svmc-report th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.svmc-report .bar{display:flex;width:32em;height:1em;border:1px solid #999}
.svmc-report .bar div{height:100%}
.svmc-report .prod{background:#4a8}.svmc-report .imb{background:#e94}.svmc-report .sync{background:#d44}.svmc-report .msg{background:#2a9d8f}.svmc-report .ovh{background:#999}.svmc-report .ser{background:#69c}
.svmc-report .key span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em;vertical-align:middle}
.svmc-report .sev{font-weight:bold}.svmc-report .advice{color:#555}
.svmc-report pre{background:#f6f6f6;padding:.6em;border:1px solid #ddd}
.svmc-report .warn{color:#a40}
.svmc-report .end{color:#fff;background:#b33;padding:.3em .6em}
.svmc-report td.ind{white-space:pre}
</style>
{{- $m := .Model}}
<h1>svmc report: {{.Trace}}</h1>
<p>program {{if $m.Program}}<b>{{$m.Program}}</b>{{else}}(no program information){{end}}:
{{$m.Procs}} processors, stage {{if ge $m.Stage 0}}{{$m.Stage}}{{else}}?{{end}}, {{$m.Records}} records,
T = {{dur $m.Duration}} ({{dur $m.Start}} .. {{dur $m.End}})</p>
{{- with $m.Order}}
<p>Consistent order: {{.Violations}} records with a clock earlier than a causal predecessor
(max correction {{dur .MaxCorrection}}), {{.EdgeViolations}} synchronisation edges backwards in time{{if .Forced}},
{{.Forced}} constraints dropped{{end}}{{if .OutOfOrder}}, {{.OutOfOrder}} records beyond the look-ahead{{end}}.</p>
{{- end}}
{{- with $m.Ended.Summary}}<p class="{{if $m.Ended.Abnormal}}end{{else}}warn{{end}}" id="run-end">{{.}}</p>{{end}}
{{- range $m.Warnings}}<p class="warn">warning: {{.}}</p>{{end}}

<h2>Time of all processors</h2>
{{- $c := $m.Time}}
<p>N × T = {{dur $c.Total}}, efficiency <b>{{pct $c.Efficiency}}</b></p>
<table>
<tr><th></th><th class="n">time</th><th class="n">share</th><th></th></tr>
<tr><td>productive</td><td class="n">{{dur $c.Productive}}</td><td class="n">{{pct (ratio $c.Productive $c.Total)}}</td><td>useful work{{if $c.Goroutines}}, {{dur $c.Goroutines}} of it goroutines of processor 0 on the cores of processors idle outside constructs{{end}}</td></tr>
<tr><td>lost</td><td class="n">{{dur $c.Lost}}</td><td class="n">{{pct (ratio $c.Lost $c.Total)}}</td><td></td></tr>
<tr><td>&nbsp;&nbsp;imbalance</td><td class="n">{{dur $c.Imbalance}}</td><td class="n">{{pct (ratio $c.Imbalance $c.Total)}}</td><td>implicit-barrier waiting that unequal busy times explain</td></tr>
<tr><td>&nbsp;&nbsp;waiting</td><td class="n">{{dur $c.Sync}}</td><td class="n">{{pct (ratio $c.Sync $c.Total)}}</td><td>barriers, locks, critical sections, split barriers</td></tr>
{{- if $m.Messages}}
<tr><td>&nbsp;&nbsp;messages</td><td class="n">{{dur $c.Messages}}</td><td class="n">{{pct (ratio $c.Messages $c.Total)}}</td><td>in message-passing calls (all lost, as Lib-DVM counts it)</td></tr>
{{- end}}
<tr><td>&nbsp;&nbsp;overhead</td><td class="n">{{dur $c.Overhead}}</td><td class="n">{{pct (ratio $c.Overhead $c.Total)}}</td><td>tracing {{dur $c.TraceOverhead}}{{if gt $c.LaneTraceOverhead 0.0}} (and {{dur $c.LaneTraceOverhead}} on goroutines' lanes, within their processor's productive time){{end}}, pdo startup {{dur $c.PDOStartup}}, chunk fetching {{dur $c.Dispatch}}, late to a pdo {{dur $c.Join}}, before/after a processor's records {{dur $c.Outside}}</td></tr>
<tr><td>&nbsp;&nbsp;serial</td><td class="n">{{dur $c.Serial}}</td><td class="n">{{pct (ratio $c.Serial $c.Total)}}</td><td>processors idle while the leader runs exclusive code</td></tr>
</table>
{{- if gt $c.Recording 0.0}}
<p>Of all these, recording the trace took about {{dur $c.Recording}} ({{pct (ratio $c.Recording $c.Total)}}; the runtime's estimate).</p>
{{- end}}
<p class="key"><span class="prod"></span>productive<span class="imb"></span>imbalance<span class="sync"></span>waiting{{if $m.Messages}}<span class="msg"></span>messages{{end}}<span class="ovh"></span>overhead<span class="ser"></span>serial</p>
<table>
<tr><th class="n">proc</th><th></th><th class="n">productive</th><th class="n">imbalance</th><th class="n">waiting</th>{{if $m.Messages}}<th class="n">messages</th>{{end}}<th class="n">overhead</th><th class="n">serial</th><th class="n">efficiency</th></tr>
{{- range $m.PerProc}}
<tr><td class="n">{{.Proc}}</td><td><div class="bar"><div class="prod" style="width:{{w .Productive .Total}}"></div><div class="imb" style="width:{{w .Imbalance .Total}}"></div><div class="sync" style="width:{{w .Sync .Total}}"></div><div class="msg" style="width:{{w .Messages .Total}}"></div><div class="ovh" style="width:{{w .Overhead .Total}}"></div><div class="ser" style="width:{{w .Serial .Total}}"></div></div></td>
<td class="n">{{dur .Productive}}</td><td class="n">{{dur .Imbalance}}</td><td class="n">{{dur .Sync}}</td>{{if $m.Messages}}<td class="n">{{dur .Messages}}</td>{{end}}<td class="n">{{dur .Overhead}}</td><td class="n">{{dur .Serial}}</td><td class="n">{{pct .Efficiency}}</td></tr>
{{- end}}
</table>

<h2>Findings</h2>
<p>Severity = lost time / (N × T).</p>
{{- if not .Findings}}<p>None above {{minsev}}.</p>{{end}}
<ol>
{{- range .Findings}}
<li><span class="sev">{{if .Unranked}}n/a{{else}}{{pct .Severity}}{{end}}</span> {{.Kind}}: {{.Title}}<br><span class="advice">advice: {{.Advice}}</span></li>
{{- end}}
</ol>

<h2>Regions</h2>
<table>
<tr><th>region</th><th>type</th><th>function</th><th>where</th><th class="n">calls</th><th class="n">incl</th><th class="n">excl</th>{{range procs $m}}<th class="n">incl p{{.}}</th>{{end}}</tr>
{{- range $m.Regions}}
<tr><td>{{reg .}}</td><td>{{.Type}}</td><td>{{.Func}}</td><td>{{.Where}}</td><td class="n">{{.Calls}}</td><td class="n">{{dur .Incl}}</td><td class="n">{{dur .Excl}}</td>{{range .PerProc}}<td class="n">{{dur .Incl}}</td>{{end}}</tr>
{{- end}}
</table>

{{- if $m.Loops}}
<h2>Parallel loops</h2>
<table>
<tr><th>loop</th><th>function</th><th>where</th><th>strategy</th><th class="n">instances</th><th class="n">iterations</th><th class="n">time</th><th class="n">busy max</th><th class="n">busy mean</th><th class="n">max/mean</th><th class="n">lost</th><th class="n">lost share</th><th>busy from</th></tr>
{{- range $m.Loops}}
<tr><td>{{loop .}}</td><td>{{.Func}}</td><td>{{.Where}}</td><td>{{.Strategy}}</td><td class="n">{{.Instances}}</td><td class="n">{{iters .}}</td><td class="n">{{dur .Time}}</td><td class="n">{{dur .BusyMax}}</td><td class="n">{{dur .BusyMean}}</td><td class="n">{{f2 .Imbalance}}</td><td class="n">{{dur .Lost}}</td><td class="n">{{pct .LostShare}}</td><td>{{.BusySource}}</td></tr>
{{- end}}
</table>
<table>
<tr><th>loop</th><th class="n">proc</th><th class="n">iterations</th><th class="n">busy</th><th class="n">wait</th><th class="n">time</th><th></th></tr>
{{- range $l := $m.Loops}}{{range $p, $lp := $l.PerProc}}{{if $lp.Instances}}
<tr><td>{{loop $l}}</td><td class="n">{{$p}}</td><td class="n">{{iter $lp.Iterations}}</td><td class="n">{{dur $lp.Busy}}</td><td class="n">{{dur $lp.Wait}}</td><td class="n">{{dur $lp.Time}}</td><td><div class="bar" style="width:16em"><div class="prod" style="width:{{w $lp.Busy $l.BusyMax}}"></div></div></td></tr>
{{- end}}{{end}}{{end}}
</table>
{{- end}}

{{- if $m.Waits}}
<h2>Waiting</h2>
<table>
<tr><th>wait</th><th>site</th><th>function</th><th>where</th><th class="n">count</th><th class="n">total</th><th class="n">max</th><th class="n">held</th>{{range procs $m}}<th class="n">p{{.}}</th>{{end}}</tr>
{{- range $m.Waits}}
<tr><td>{{.Wait}}</td><td>{{site .Site}}</td><td>{{.Func}}</td><td>{{.Where}}</td><td class="n">{{.Count}}</td><td class="n">{{dur .Total}}</td><td class="n">{{dur .Max}}</td><td class="n">{{dur .Hold}}</td>{{range .PerProc}}<td class="n">{{dur .}}</td>{{end}}</tr>
{{- end}}
</table>
{{- end}}

{{- with $m.GC}}
<h2 id="gc">Go's garbage collector</h2>
<p>{{.Pauses}} stop-the-world pauses (svmc run --gotrace), {{dur .Total}} in all, the longest {{dur .Longest}};
{{dur .InWaits}} of the waits overlap them: waiting the collector caused, not the program's imbalance.</p>
{{- if gt .InWaits 0.0}}
<table>
<tr><th>wait</th><th>where</th><th class="n">during pauses</th><th class="n">of the wait</th></tr>
{{- range $m.Waits}}{{if gt .GC 0.0}}
<tr><td>{{.Wait}}</td><td>{{.Where}}</td><td class="n">{{dur .GC}}</td><td class="n">{{pct (gcShare .)}}</td></tr>
{{- end}}{{end}}
</table>
{{- end}}
{{- end}}

{{- if $m.Goroutines}}
<h2 id="goroutines">Goroutines the processors started</h2>
<p>Each on a lane of its own; their time is their processor's.</p>
<table>
<tr><th class="n">proc</th><th class="n">goroutines</th><th class="n">lanes</th><th class="n">life</th><th class="n">longest</th><th class="n">in regions</th><th>started at</th></tr>
{{- range $m.Goroutines}}
<tr><td class="n">{{.Proc}}</td><td class="n">{{.Goroutines}}</td><td class="n">{{.Lanes}}</td><td class="n">{{dur .Life}}</td><td class="n">{{dur .Longest}}</td><td class="n">{{dur .Regions}}</td><td>{{range $i, $s := .Where}}{{if $i}}, {{end}}{{$s.At}} ({{$s.Goroutines}}){{end}}{{if .Unfinished}}, {{.Unfinished}} still running at the end{{end}}{{if .Untraced}}, {{.Untraced}} more untraced{{end}}</td></tr>
{{- end}}
</table>
{{- end}}

{{- with $m.Messages}}
<h2 id="messages">Message passing</h2>
<table>
<tr><th>call</th><th>where</th><th class="n">count</th><th class="n">time</th></tr>
{{- range .Calls}}
<tr><td>{{.Func}}</td><td>{{.Where}}</td><td class="n">{{.Count}}</td><td class="n">{{dur .Time}}</td></tr>
{{- end}}
</table>
{{- if .Waits}}
<p>Wait states (Scalasca's): the part of the calls' time spent waiting for a partner.</p>
<table>
<tr><th>state</th><th>call</th><th>where</th><th>waits for</th><th class="n">count</th><th class="n">total</th><th class="n">max</th><th class="n">culprit</th></tr>
{{- range .Waits}}
<tr><td>{{.Kind}}</td><td>{{.Func}}</td><td>{{.Where}}</td><td>{{.PeerFunc}} {{.PeerWhere}}</td><td class="n">{{.Count}}</td><td class="n">{{dur .Time}}</td><td class="n">{{dur .Max}}</td><td class="n">{{.Culprit}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- if .Matrix}}
<p>Messages from processor to processor.</p>
<table>
<tr><th class="n">from</th><th class="n">to</th><th class="n">count</th><th class="n">bytes</th><th class="n">receiving time</th></tr>
{{- range .Matrix}}
<tr><td class="n">{{.Src}}</td><td class="n">{{.Dst}}</td><td class="n">{{.Count}}</td><td class="n">{{.Bytes}}</td><td class="n">{{dur .Time}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- end}}

{{- if $m.Measures}}
<h2 id="measures">Measured intervals</h2>
<p>MeasureStart / MeasureFinish per name and enclosure level; elapsed time from the measure-finish records.</p>
<table>
<tr><th>interval</th><th class="n">level</th><th class="n">entries</th><th class="n">total</th><th class="n">mean</th><th class="n">max</th><th class="n">unfinished</th>{{range procs $m}}<th class="n">p{{.}}</th>{{end}}</tr>
{{- range $m.Measures}}
<tr><td class="ind">{{mlabel .}}</td><td class="n">{{.Level}}</td><td class="n">{{.Entries}}</td><td class="n">{{dur .Elapsed}}</td><td class="n">{{dur .Mean}}</td><td class="n">{{dur .Max}}</td><td class="n">{{.Unfinished}}</td>{{range .PerProc}}<td class="n">{{if .Entries}}{{.Entries}} × {{dur (mean .)}}<br>{{dur .Elapsed}}{{else}}–{{end}}</td>{{end}}</tr>
{{- end}}
</table>
<p>Per processor: entries × mean, and the total.</p>
{{- end}}

{{- if $m.Stats}}
<h2 id="stats">Interval statistics of the runtime</h2>
<p>{{statsnote}}</p>
<table>
<tr><th class="n">id</th><th>interval</th><th class="n">entries</th><th class="n">processors</th><th class="n">execution</th><th class="n">processor time</th><th class="n">productive</th><th class="n">user productive</th><th class="n">system productive</th><th class="n">lost</th><th class="n">user lost</th><th class="n">system lost</th><th class="n">idle</th><th class="n">calls</th><th class="n">efficiency</th></tr>
{{- range $m.Stats}}
<tr><td class="n">{{.ID}}</td><td class="ind">{{slabel .}}</td><td class="n">{{.Entries}}</td><td class="n">{{.Procs}}</td><td class="n">{{dur .Exec}}</td><td class="n">{{dur .ProcTime}}</td><td class="n">{{dur .Productive}}</td><td class="n">{{dur .UserProductive}}</td><td class="n">{{dur .SystemProductive}}</td><td class="n">{{dur .Lost}}</td><td class="n">{{dur .UserLost}}</td><td class="n">{{dur .SystemLost}}</td><td class="n">{{dur .Idle}}</td><td class="n">{{count .SystemCalls}}</td><td class="n">{{pct .Efficiency}}</td></tr>
{{- end}}
</table>
<p>Interval matrices: calls, productive and lost time of each group of runtime functions called from a caller group (user program → user program: the program's own code).</p>
<table>
<tr><th class="n">id</th><th>interval</th><th>caller group</th><th>group</th><th class="n">calls</th><th class="n">productive</th><th class="n">lost</th></tr>
{{- range $si := $m.Stats}}{{range $si.Groups}}
<tr><td class="n">{{$si.ID}}</td><td>{{$si.Name}}</td><td>{{.CallerName}}</td><td>{{.Name}}</td><td class="n">{{count .Calls}}</td><td class="n">{{dur .Productive}}</td><td class="n">{{dur .Lost}}</td></tr>
{{- end}}{{end}}
</table>
{{- end}}

{{- if .NextRequest}}
<h2>Next trace request</h2>
<p>Save as a file and run <code>svmc run --request FILE ...</code>:</p>
<pre>{{.NextRequest}}</pre>
{{- end}}
</div>
`))
