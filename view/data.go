package view

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// The page's data is one JSON object (see appendData). The big parts are
// arrays of numbers, written by hand so that an interval costs about 30
// bytes: a trace of 1e5 intervals gives a page of a few megabytes that a
// browser parses in well under a second. Times are microseconds relative
// to Timeline.Start, rounded to nanoseconds.

type pageKind struct {
	Name  string `json:"name"`
	Color string `json:"color"`
	Start string `json:"start"` // record that opens it
	End   string `json:"end"`   // record that closes it
	Style string `json:"style"` // "region", "wait", "held" or "measure"
}

type pageSite struct {
	Name  string `json:"n"`
	Func  string `json:"f"`
	Sub   int    `json:"sub"`
	Dir   int    `json:"dir"`
	Kind  string `json:"k,omitempty"`
	Label string `json:"l,omitempty"`
	Where string `json:"w,omitempty"`
	Text  string `json:"x,omitempty"`
	Level int    `json:"lv,omitempty"` // a measured interval's level
}

type pageMeta struct {
	Trace    string   `json:"trace"`
	Program  string   `json:"program,omitempty"`
	Procs    int      `json:"procs"`
	Start    float64  `json:"start"` // absolute time of 0 on the page
	Span     float64  `json:"span"`
	Records  int64    `json:"records"`
	Warnings []string `json:"warnings,omitempty"`
	Lanes    []string `json:"lanes,omitempty"` // lane names, "P<n>" when absent
}

// appendData writes the page's data object:
//
//	meta   pageMeta
//	kinds  []pageKind, indexed by Kind
//	sites  []pageSite, indexed by Interval.Site / Instant.Site
//	iv     [[proc, kind, site, depth, start, end, unclosed 0|1], ...], with
//	       an eighth element, the peer, for a message call that has one
//	fix    [[iv index, clock0, clock1, which], ...] intervals whose clocks
//	       differ from their corrected times (absolute clocks; which: 1 the
//	       opening's, 2 the closing's, 3 both)
//	names  record names of the instants
//	in     [[proc, name index, site, time, rec index], ...], with a sixth
//	       element, the absolute clock, when it differs from the
//	       corrected time
//	rec    the instants' fields as trace.DumpLine prints them (without
//	       the node, time and name the in entry has), each text once
//	msg    [[from, to, send time, receive time, tag, bytes, send site,
//	       receive site], ...] the messages, drawn as lines between lanes
//	marks  [[proc, time, class, message, file:line], ...] errors a checker
//	       found (svmc view --check)
//	gc     [[start, duration, gc number], ...] the collector's pauses
//	order  {runs: [proc, n, proc, n, ...], ev: ["oic..." per processor]}
//	       the steps of the consistent order (Timeline.Steps): the next n
//	       steps are processor proc's; a processor's steps in its order are
//	       o (its next interval, in iv order, opens), c (the innermost open
//	       one closes: the replay closes from the innermost) and i (its
//	       next instant)
//	src    [{f: file, t: text or null, l: [[line, time, calls, imbalance,
//	       wait, waits, messages, bytes, faults, [sites], [[class, text],
//	       ...]], ...]}, ...] the source view (Timeline.Source)
func appendData(buf *bytes.Buffer, tl *Timeline) error {
	meta := pageMeta{Trace: tl.Trace, Program: tl.Program, Procs: tl.Procs, Start: tl.Start,
		Span: tl.End - tl.Start, Records: tl.Records, Warnings: tl.Warnings, Lanes: tl.Lanes}
	var ks []pageKind
	for k := Kind(0); k < NumKinds; k++ {
		ks = append(ks, pageKind{kinds[k].name, kinds[k].color, kinds[k].start, kinds[k].end, k.style()})
	}
	ss := make([]pageSite, len(tl.Sites))
	for i := range tl.Sites {
		s := &tl.Sites[i]
		ss[i] = pageSite{s.Name, s.Func, s.Sub, s.Dir, s.Kind, s.Label, s.Where(), s.Text, s.Level}
	}
	buf.WriteString(`{"meta":`)
	if err := writeJSON(buf, meta); err != nil {
		return err
	}
	buf.WriteString(",\n\"kinds\":")
	if err := writeJSON(buf, ks); err != nil {
		return err
	}
	buf.WriteString(",\n\"sites\":")
	if err := writeJSON(buf, ss); err != nil {
		return err
	}
	var b []byte
	rel := func(t float64) { b = appendNum(b, t-tl.Start) }
	b = append(b, ",\n\"iv\":["...)
	var fix []byte
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(iv.Proc), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(iv.Kind), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(iv.Site), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(iv.Depth), 10)
		b = append(b, ',')
		rel(iv.Start)
		b = append(b, ',')
		rel(iv.End)
		if iv.Unclosed {
			b = append(b, ",1"...)
		} else {
			b = append(b, ",0"...)
		}
		if iv.Kind.IsMsg() && iv.Peer >= 0 {
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(iv.Peer), 10)
		} else if len(iv.Team) > 0 {
			b = append(b, ",["...) // a barrier's team: its partners
			for j, q := range iv.Team {
				if j > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(q), 10)
			}
			b = append(b, ']')
		}
		b = append(b, ']')
		if i%64 == 63 {
			b = append(b, '\n')
		}
		if differs(iv.Clock0, iv.Start) || differs(iv.Clock1, iv.End) {
			if len(fix) > 0 {
				fix = append(fix, ',')
			}
			fix = append(fix, '[')
			fix = strconv.AppendInt(fix, int64(i), 10)
			fix = append(fix, ',')
			fix = appendNum(fix, iv.Clock0)
			fix = append(fix, ',')
			fix = appendNum(fix, iv.Clock1)
			fix = append(fix, ',')
			mask := 0
			if differs(iv.Clock0, iv.Start) {
				mask |= 1
			}
			if differs(iv.Clock1, iv.End) {
				mask |= 2
			}
			fix = strconv.AppendInt(fix, int64(mask), 10)
			fix = append(fix, ']')
		}
	}
	b = append(b, "],\n\"fix\":["...)
	b = append(b, fix...)
	b = append(b, "],\n\"in\":["...)
	names := map[string]int{}
	var nameList []string
	// Many instants repeat their fields (aps-info, iteration spaces):
	// each text is stored once.
	recIDs := map[string]int{}
	var recs []string
	for i := range tl.Instants {
		in := &tl.Instants[i]
		n, ok := names[in.Name]
		if !ok {
			n = len(nameList)
			names[in.Name] = n
			nameList = append(nameList, in.Name)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(in.Proc), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(in.Site), 10)
		b = append(b, ',')
		rel(in.Time)
		fields := recordFields(in.Record, in.Name)
		r, ok := recIDs[fields]
		if !ok {
			r = len(recs)
			recIDs[fields] = r
			recs = append(recs, fields)
		}
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r), 10)
		if differs(in.Clock, in.Time) {
			b = append(b, ',')
			b = appendNum(b, in.Clock)
		}
		b = append(b, ']')
		if i%64 == 63 {
			b = append(b, '\n')
		}
	}
	b = append(b, "],\n\"msg\":["...)
	for i := range tl.Messages {
		mg := &tl.Messages[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, v := range []int64{int64(mg.From), int64(mg.To)} {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, v, 10)
		}
		b = append(b, ',')
		rel(mg.Send)
		b = append(b, ',')
		rel(mg.Recv)
		for _, v := range []int64{int64(mg.Tag), mg.Bytes, int64(mg.SendSite), int64(mg.RecvSite)} {
			b = append(b, ',')
			b = strconv.AppendInt(b, v, 10)
		}
		b = append(b, ']')
		if i%64 == 63 {
			b = append(b, '\n')
		}
	}
	b = append(b, "],\n\"names\":"...)
	buf.Write(b)
	if err := writeJSON(buf, nameList); err != nil {
		return err
	}
	buf.WriteString(",\n\"marks\":")
	marks := make([][]any, 0, len(tl.Marks))
	for _, m := range tl.Marks {
		marks = append(marks, []any{m.Proc, math.Round((m.Time-tl.Start)*1000) / 1000, m.Class, m.Message, m.Where})
	}
	if err := writeJSON(buf, marks); err != nil {
		return err
	}
	buf.WriteString(",\n\"rec\":")
	if err := writeJSON(buf, recs); err != nil {
		return err
	}
	buf.WriteString(",\n\"gc\":[")
	for i, g := range tl.GC {
		if i > 0 {
			buf.WriteByte(',')
		}
		b = b[:0]
		b = append(b, '[')
		b = appendNum(b, g.Start-tl.Start)
		b = append(b, ',')
		b = appendNum(b, g.Dur)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(g.N), 10)
		b = append(b, ']')
		buf.Write(b)
	}
	buf.WriteString("]")
	buf.WriteString(",\n\"order\":")
	if err := writeJSON(buf, pageOrder(tl)); err != nil {
		return err
	}
	buf.WriteString(",\n\"src\":")
	if err := writeJSON(buf, pageSource(tl.Source())); err != nil {
		return err
	}
	buf.WriteString("}")
	return nil
}

// recordFields is the part of a trace.DumpLine after the record's name:
// "node 0  t=1.5us  aps-info  pids=[4]{0,1,2,3}" gives "pids=[4]{0,1,2,3}".
func recordFields(line, name string) string {
	if i := strings.Index(line, "  "+name); i >= 0 {
		return strings.TrimSpace(line[i+2+len(name):])
	}
	return line
}

// differs reports whether a clock and a corrected time differ by more than
// the page's rounding.
func differs(clock, t float64) bool { return math.Abs(clock-t) >= 0.0005 }

// appendNum appends x rounded to three decimals (nanoseconds) in the
// shortest form; non-finite values become 0 (JSON has no NaN).
func appendNum(b []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(b, '0')
	}
	x = math.Round(x*1000) / 1000
	if x == 0 {
		return append(b, '0') // also -0
	}
	return strconv.AppendFloat(b, x, 'f', -1, 64)
}

// writeJSON encodes v without a trailing newline. encoding/json escapes
// <, > and & in strings, so the data can sit inside a <script> element.
func writeJSON(buf *bytes.Buffer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf.Write(data)
	return nil
}

type pageFile struct {
	Name  string  `json:"f"`
	Text  *string `json:"t"`
	Lines [][]any `json:"l"`
}

func pageSource(files []SourceFile) []pageFile {
	out := make([]pageFile, 0, len(files))
	r3 := func(x float64) float64 { return math.Round(x*1000) / 1000 }
	for i := range files {
		f := &files[i]
		pf := pageFile{Name: f.Name, Lines: make([][]any, 0, len(f.Lines))}
		if f.Known {
			pf.Text = &f.Text
		}
		for _, l := range f.Lines {
			notes := make([][2]string, 0, len(l.Notes))
			for _, n := range l.Notes {
				notes = append(notes, [2]string{n.Class, n.Text})
			}
			sites := l.Sites
			if sites == nil {
				sites = []int{}
			}
			pf.Lines = append(pf.Lines, []any{l.Line, r3(l.Time), l.Calls, math.Round(l.Imbalance*1e4) / 1e4,
				r3(l.Wait), l.Waits, l.Messages, l.Bytes, l.Faults, sites, notes})
		}
		out = append(out, pf)
	}
	return out
}

type orderData struct {
	Runs []int    `json:"runs"`
	Ev   []string `json:"ev"`
}

// pageOrder writes Timeline.Steps in about two bytes a step: which
// processor's next step each is (run-length coded) and what each
// processor's steps are (see appendData).
func pageOrder(tl *Timeline) orderData {
	ev := make([][]byte, tl.Procs)
	var runs []int
	for _, st := range tl.Steps {
		var p int
		var c byte
		switch {
		case st.Interval < 0:
			p, c = tl.Instants[st.Instant].Proc, 'i'
		case st.Open:
			p, c = tl.Intervals[st.Interval].Proc, 'o'
		default:
			p, c = tl.Intervals[st.Interval].Proc, 'c'
		}
		if p >= len(ev) {
			continue
		}
		ev[p] = append(ev[p], c)
		if n := len(runs); n > 0 && runs[n-2] == p {
			runs[n-1]++
		} else {
			runs = append(runs, p, 1)
		}
	}
	out := orderData{Runs: runs, Ev: make([]string, len(ev))}
	if out.Runs == nil {
		out.Runs = []int{}
	}
	for p := range ev {
		out.Ev[p] = string(ev[p])
	}
	return out
}
