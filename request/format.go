package request

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Format writes f as request file text, one entry per line, keywords in
// their canonical spelling, sizes with the largest exact suffix. Includes
// are written as INCLUDE entries, not expanded; comments are not kept.
// Parsing the result gives f again, but for positions and Dropped.
func Format(f *File) []byte {
	var b bytes.Buffer
	for _, e := range f.Entries {
		switch e := e.(type) {
		case *ConfigEntry:
			b.WriteString(formatConfig(e))
		case *Include:
			b.WriteString("INCLUDE " + formatPath(e.Path))
		case *Request:
			b.WriteString(e.String())
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func formatConfig(e *ConfigEntry) string {
	if e.Key == ConfigTraceStage || e.Key == ConfigThrottleCalls {
		return fmt.Sprintf("CONFIG %s: %d", e.Key, e.Value)
	}
	return fmt.Sprintf("CONFIG %s: %s", e.Key, formatSize(e.Value))
}

func formatSize(v int64) string {
	switch {
	case v > 0 && v%(1<<30) == 0:
		return strconv.FormatInt(v>>30, 10) + "G"
	case v > 0 && v%(1<<20) == 0:
		return strconv.FormatInt(v>>20, 10) + "M"
	case v > 0 && v%(1<<10) == 0:
		return strconv.FormatInt(v>>10, 10) + "K"
	}
	return strconv.FormatInt(v, 10)
}

// formatPath writes a file name bare when it can be read back so, quoted
// otherwise.
func formatPath(p string) string {
	if p == "" || strings.ContainsAny(p, " \t\r\n") || strings.ContainsAny(p[:1], "\"#!") {
		return strconv.Quote(p)
	}
	return p
}

// String writes the request as one line of request file text.
func (r *Request) String() string {
	var b strings.Builder
	b.WriteString("REQUEST ")
	if r.Nodes != nil {
		b.WriteString("(" + formatRanges(r.Nodes) + ") ")
	}
	switch {
	case r.Global != nil:
		b.WriteString("GLOBAL ")
		for i, it := range r.Global.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(it.Kind.String())
		}
	case r.Local != nil:
		l := r.Local
		b.WriteString("LOCAL " + subText(l.Sub) + "." + regionText(l.Region) + ":")
		for i, w := range l.Words {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(" (" + w.Kind.String())
			if w.Vars != nil {
				b.WriteString("[" + joinIdents(w.Vars) + "]")
			}
			b.WriteString(")")
		}
	}
	return b.String()
}

func formatRanges(rs []Range) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = strconv.Itoa(r.Lo)
		if r.Hi != r.Lo {
			s[i] += "-" + strconv.Itoa(r.Hi)
		}
	}
	return strings.Join(s, ", ")
}

func joinIdents(ids []Ident) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.Name
	}
	return strings.Join(s, ", ")
}

func regionText(rs RegionSpec) string {
	switch rs.Kind {
	case RegPDOLabel:
		return "PDO_LABEL(" + joinIdents(rs.Labels) + ")"
	case RegLabel:
		return "REG_LABEL(" + joinIdents(rs.Labels) + ")"
	case RegNo:
		return "REG_NO(" + formatRanges(rs.Nums) + ")"
	}
	return "*"
}

// The builders below make requests for tools (the analysis tool proposes
// the next request). Each writes the request as text and parses it, so what
// they return is exactly what a file with that line gives; positions are in
// the file "<generated>". A word is written as in a file: "PDOInfo",
// "BARRIER", "*.SyncInfo", "RPFSum[a, b]" (keywords in any case).

// GeneratedFile is the file name of the positions of built requests.
const GeneratedFile = "<generated>"

// GlobalRequest returns "REQUEST GLOBAL <items>", e.g.
// GlobalRequest("MappingInfo", "TrOverhead").
func GlobalRequest(items ...string) (*Request, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("request: a global request needs at least one item")
	}
	r, err := build("REQUEST GLOBAL " + strings.Join(items, ", "))
	if err == nil && (r.Global == nil || len(r.Global.Items) != len(items)) {
		return nil, fmt.Errorf("request: bad global request items %q", items)
	}
	return r, err
}

// LocalRequest returns a local request for the pdo labelled pdoLabel in
// subprogram sub ("F", "T.M", "@MAIN" or "*"), or for every region of sub
// if pdoLabel is "": LocalRequest("solve", "sweep", "PDOInfo", "BARRIER")
// is "REQUEST LOCAL solve.PDO_LABEL(sweep): (PDOInfo), (BARRIER)".
func LocalRequest(sub, pdoLabel string, words ...string) (*Request, error) {
	region := "*"
	if pdoLabel != "" {
		if !isName(pdoLabel) {
			return nil, fmt.Errorf("request: bad label %q", pdoLabel)
		}
		region = "PDO_LABEL(" + pdoLabel + ")"
	}
	return localRequest(sub, region, words)
}

// LabelRequest returns a local request for the regions labelled label
// (REG_LABEL) in sub.
func LabelRequest(sub, label string, words ...string) (*Request, error) {
	if !isName(label) {
		return nil, fmt.Errorf("request: bad label %q", label)
	}
	return localRequest(sub, "REG_LABEL("+label+")", words)
}

// isName reports whether s is one name token.
func isName(s string) bool {
	sc := newScanner("", []byte(s))
	t := sc.next()
	return t.kind == tIdent && t.text == s
}

// RegionRequest returns a local request for region number region (REG_NO;
// 0 is the subprogram itself) of sub.
func RegionRequest(sub string, region int, words ...string) (*Request, error) {
	return localRequest(sub, "REG_NO("+strconv.Itoa(region)+")", words)
}

func localRequest(sub, region string, words []string) (*Request, error) {
	if len(words) == 0 {
		return nil, fmt.Errorf("request: a local request needs at least one word")
	}
	switch before, after, method := strings.Cut(sub, "."); {
	case sub == "":
		sub = "*"
	case sub == "*" || strings.EqualFold(sub, "@MAIN"):
	case !isName(before) || method && !isName(after):
		return nil, fmt.Errorf("request: bad function name %q", sub)
	}
	r, err := build("REQUEST LOCAL " + sub + "." + region + ": (" + strings.Join(words, "), (") + ")")
	if err == nil && len(r.Local.Words) != len(words) {
		return nil, fmt.Errorf("request: bad request words %q", words)
	}
	return r, err
}

// build parses text, which must give exactly one request on one line.
func build(text string) (*Request, error) {
	if strings.ContainsAny(text, "\n#!") {
		return nil, fmt.Errorf("request: bad request %q", text)
	}
	f, err := Parse(GeneratedFile, []byte(text))
	if err != nil {
		return nil, err
	}
	if len(f.Entries) != 1 {
		return nil, fmt.Errorf("request: bad request %q", text)
	}
	r, ok := f.Entries[0].(*Request)
	if !ok {
		return nil, fmt.Errorf("request: bad request %q", text)
	}
	return r, nil
}

// OnNodes restricts r to the given processors (every processor if none are
// given) and returns r. Consecutive numbers are written as ranges.
func (r *Request) OnNodes(nodes ...int) *Request {
	r.Nodes = nil
	for _, n := range nodes {
		if k := len(r.Nodes); k > 0 && r.Nodes[k-1].Hi+1 == n {
			r.Nodes[k-1].Hi = n
			continue
		}
		r.Nodes = append(r.Nodes, Range{Lo: n, Hi: n})
	}
	return r
}

// NewConfig returns the entry "CONFIG <key>: <value>", checking the value
// as the parser does (a stage 0..6, a positive size up to MaxSize).
func NewConfig(key ConfigKey, value int64) (*ConfigEntry, error) {
	switch {
	case key == ConfigTraceStage && (value < 0 || value > MaxStage):
		return nil, fmt.Errorf("request: bad stage %d: want a number from 0 to %d", value, MaxStage)
	case (key == ConfigTraceBufSize || key == ConfigKernelTraceBufSize) && value <= 0:
		return nil, fmt.Errorf("request: bad size %d: a buffer needs at least one byte", value)
	case (key == ConfigTraceBufSize || key == ConfigKernelTraceBufSize) && value > MaxSize:
		return nil, fmt.Errorf("request: bad size %d: too large (at most %dG)", value, MaxSize>>30)
	case key == ConfigThrottleCalls && (value < 0 || value > MaxCalls):
		return nil, fmt.Errorf("request: bad number of calls %d: want 0 to %d", value, MaxCalls)
	case key < ConfigTraceBufSize || key > ConfigThrottleCalls:
		return nil, fmt.Errorf("request: unknown configuration parameter %v", key)
	}
	return &ConfigEntry{Key: key, Value: value}, nil
}

// Add appends entries to f and returns f.
func (f *File) Add(entries ...Entry) *File {
	f.Entries = append(f.Entries, entries...)
	return f
}
