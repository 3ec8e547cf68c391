package main

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/svmc/svmc/progdb"
)

// raceFilter reads the error output of a program built with the race
// detector (svmc run --race): it passes the program's own output on and
// replaces each data race report (a stack trace per access, in the
// detector's goroutine numbers) by one line in svmc's terms — which
// construct, which processors, which source lines. The detector's own
// reports stay available with GORACE=log_path=FILE.
type raceFilter struct {
	out   io.Writer
	prog  *progdb.Program
	mu    sync.Mutex
	races []raceReport
	// said holds the lines printed: the detector reports a pair of
	// source lines once per pair of machine instructions (a map write is
	// a read and a write inside the runtime), which say the same in
	// svmc's terms.
	said map[string]bool
}

// raceAccess is one side of a data race report.
type raceAccess struct {
	write     bool
	goroutine int
	proc      int // -1 unknown
	starter   int // the processor that started the goroutine (not a processor's own), -1 unknown
	file      string
	line      int
}

type raceReport struct{ a, b raceAccess }

var (
	// A processor's goroutine starts in rtlib.svmcProcessor<N> in a race
	// build: the bottom of an access's stack names the processor.
	raceProc    = regexp.MustCompile(`rtlib\.svmcProcessor(\d+)\(`)
	raceCreated = regexp.MustCompile(`^Goroutine (\d+) \(.*\) created at:`)
	raceHead    = regexp.MustCompile(`^(?:Previous )?(read|write|Read|Write) at 0x[0-9a-f]+ by (?:goroutine (\d+)|main goroutine)`)
	raceFrame   = regexp.MustCompile(`^\s+(\S+\.go):(\d+)`)
)

// run copies r to the filter's output until r ends.
func (f *raceFilter) run(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var cur []raceAccess
	in := false
	created := -1 // the goroutine whose creation stack is being read
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "==================" && !in:
			continue // opens a report
		case strings.HasPrefix(line, "Found ") && strings.HasSuffix(line, " data race(s)"):
			continue
		case !in && line != "WARNING: DATA RACE":
			fmt.Fprintln(f.out, line)
			continue
		}
		switch {
		case line == "WARNING: DATA RACE":
			in, cur, created = true, nil, -1
		case in && strings.HasPrefix(line, "=================="):
			// The report ends (first: a creation stack that named no
			// processor must not swallow it).
			in, created = false, -1
			if len(cur) >= 2 {
				rep := raceReport{cur[0], cur[1]}
				msg := f.explain(rep)
				f.mu.Lock()
				f.races = append(f.races, rep)
				again := f.said[msg]
				if f.said == nil {
					f.said = map[string]bool{}
				}
				f.said[msg] = true
				f.mu.Unlock()
				if !again {
					fmt.Fprintln(f.out, "svmc: "+msg)
				}
			}
		case in && created >= 0 && strings.TrimSpace(line) == "":
			created = -1 // a creation stack ends with a blank line
		case in && raceCreated.MatchString(line):
			created, _ = strconv.Atoi(raceCreated.FindStringSubmatch(line)[1])
		case in && created >= 0 && raceProc.MatchString(line):
			// The goroutine was started by this processor's code.
			n, _ := strconv.Atoi(raceProc.FindStringSubmatch(line)[1])
			for i := range cur {
				if cur[i].goroutine == created && cur[i].proc < 0 && cur[i].starter < 0 {
					cur[i].starter = n
				}
			}
			created = -1
		case in && created >= 0:
		case in && raceHead.MatchString(line):
			m := raceHead.FindStringSubmatch(line)
			g, _ := strconv.Atoi(m[2])
			cur = append(cur, raceAccess{write: strings.EqualFold(m[1], "write"), goroutine: g, proc: -1, starter: -1})
		case in && len(cur) > 0 && raceProc.MatchString(line):
			if cur[len(cur)-1].proc < 0 {
				cur[len(cur)-1].proc, _ = strconv.Atoi(raceProc.FindStringSubmatch(line)[1])
			}
		case in && len(cur) > 0 && cur[len(cur)-1].file == "":
			// The first frame in the program's own code: not the
			// runtime's, the standard library's or svmc's.
			if m := raceFrame.FindStringSubmatch(line); m != nil && userFile(m[1]) {
				n, _ := strconv.Atoi(m[2])
				cur[len(cur)-1].file, cur[len(cur)-1].line = m[1], n
			}
		}
	}
}

// userFile reports whether a frame's file is the program's: not Go's, not
// the runtime's nor the packages it is written out with (the trace
// format's Buf, where a deep recursion's stack overflowed once region
// records were appended by trace.Buf.Rec3), not the generated tables
// (race reports, and crash reports: crashfilter.go).
func userFile(path string) bool {
	return !strings.Contains(path, "/src/runtime/") && !strings.Contains(path, "/svmc/rtlib/") && !strings.Contains(path, "/rtlib/") &&
		!strings.Contains(path, "/svmc/runtime-") &&
		!strings.HasPrefix(filepath.Base(path), "svm_tables") && !strings.Contains(path, "/go/src/") && !strings.Contains(path, "/pkg/mod/")
}

// explain says a race report in svmc's terms.
func (f *raceFilter) explain(r raceReport) string {
	side := func(a raceAccess) string {
		kind := "read"
		if a.write {
			kind = "write"
		}
		who := fmt.Sprintf("goroutine %d", a.goroutine)
		switch {
		case a.proc >= 0:
			who = fmt.Sprintf("processor %d", a.proc)
		case a.starter >= 0:
			who = fmt.Sprintf("a goroutine processor %d started", a.starter)
		}
		if a.file == "" {
			return fmt.Sprintf("%s by %s", kind, who)
		}
		return fmt.Sprintf("%s at %s:%d by %s", kind, filepath.Base(a.file), a.line, who)
	}
	msg := fmt.Sprintf("data race: %s, %s", side(r.a), side(r.b))
	if where := f.construct(r.a); where != "" {
		msg += " (in the " + where + ")"
	} else if where := f.construct(r.b); where != "" {
		msg += " (in the " + where + ")"
	}
	return msg
}

// construct names the innermost parallel construct whose source holds an
// access, from the program information.
func (f *raceFilter) construct(a raceAccess) string {
	if f.prog == nil || a.file == "" {
		return ""
	}
	base := filepath.Base(a.file)
	best := ""
	bestSpan := -1
	for _, s := range f.prog.Subprograms {
		for _, rg := range s.Regions {
			if rg.Num == 0 || filepath.Base(rg.Pos.File) != base || a.line < rg.Pos.Line || a.line > rg.End.Line {
				continue
			}
			switch rg.Type {
			case "pdo", "psection", "section", "replicated":
			default:
				continue
			}
			if span := rg.End.Line - rg.Pos.Line; bestSpan < 0 || span < bestSpan {
				bestSpan = span
				best = fmt.Sprintf("%s at %s:%d", rg.Type, base, rg.Pos.Line)
				if rg.Label != "" {
					best = fmt.Sprintf("%s %s at %s:%d", rg.Type, rg.Label, base, rg.Pos.Line)
				}
			}
		}
	}
	return best
}

// summary is the closing line: how many races, at which lines.
func (f *raceFilter) summary() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.races) == 0 {
		return ""
	}
	lines := map[string]bool{}
	for _, r := range f.races {
		for _, a := range []raceAccess{r.a, r.b} {
			if a.file != "" {
				lines[fmt.Sprintf("%s:%d", filepath.Base(a.file), a.line)] = true
			}
		}
	}
	var ls []string
	for l := range lines {
		ls = append(ls, l)
	}
	sort.Strings(ls)
	n := len(f.said)
	return fmt.Sprintf("svmc: the race detector found %d data race%s (%d of its reports), at %s (its own reports: GORACE=log_path=FILE)", n, map[bool]string{true: "", false: "s"}[n == 1], len(f.races), strings.Join(ls, ", "))
}
