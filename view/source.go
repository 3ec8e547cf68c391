package view

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/svmc/svmc/trace"
)

// The source view (seed 002's OPAL: results presented "directly by
// annotating source code"): the program's files, each line that a site of
// the timeline lies on annotated with what happened there. The page draws
// it under the timeline and ties a line to its bars both ways.

// Note is a finding of svmc report or an error of svmc check tied to a
// source line.
type Note struct {
	File  string
	Line  int
	Class string // "finding" or "error"
	Text  string
}

// LineStat is what the run did at one source line: at the sites that lie
// on it (a region opened there, a construct's wait, a message call, a
// shared access).
type LineStat struct {
	Line  int
	Sites []int // indexes into Timeline.Sites
	// Time is the inclusive time of the regions opened here summed over
	// processors (a recursive activation counted once), Calls their
	// activations.
	Time  float64
	Calls int
	// Imbalance of the parallel loops here: (max − mean) / max of the
	// processors' busy times in them (not waiting), 0 when none ran.
	Imbalance float64
	Wait      float64 // time waiting at the constructs here
	Waits     int
	Messages  int   // messages sent or received by the calls here
	Bytes     int64 // their bytes
	Faults    int   // page faults of the shared accesses here
	Notes     []Note
}

// SourceFile is one file of the source view: its text when known, and its
// annotated lines in line order.
type SourceFile struct {
	Name  string
	Text  string
	Known bool // Text was read (ReadSources)
	Lines []LineStat
}

// AddNote ties a finding or an error to a source line.
func (tl *Timeline) AddNote(n Note) {
	if n.File == "" || slices.Contains(tl.Notes, n) {
		return
	}
	tl.Notes = append(tl.Notes, n)
}

// ReadSources reads the program's files from dir (its package directory)
// into tl.Sources and returns the names it could not read.
func (tl *Timeline) ReadSources(dir string) (missing []string, err error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if tl.Sources == nil {
		tl.Sources = map[string]string{}
	}
	for _, f := range tl.sourceNames() {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			missing = append(missing, f)
			continue
		}
		tl.Sources[f] = string(data)
	}
	return missing, nil
}

// sourceNames are the files of the program information and those the
// sites and notes name, sorted.
func (tl *Timeline) sourceNames() []string {
	names := slices.Clone(tl.Files)
	for i := range tl.Sites {
		if f := tl.Sites[i].File; f != "" {
			names = append(names, f)
		}
	}
	for _, n := range tl.Notes {
		names = append(names, n.File)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Source annotates the program's files with the whole run.
func (tl *Timeline) Source() []SourceFile {
	tot := totalsOf(tl, tl.Start, tl.End)
	lines := map[string]map[int]*LineStat{}
	at := func(file string, line int) *LineStat {
		m := lines[file]
		if m == nil {
			m = map[int]*LineStat{}
			lines[file] = m
		}
		ls := m[line]
		if ls == nil {
			ls = &LineStat{Line: line}
			m[line] = ls
		}
		return ls
	}
	siteLine := func(si int) *LineStat {
		if si < 0 || si >= len(tl.Sites) || tl.Sites[si].File == "" {
			return nil
		}
		s := &tl.Sites[si]
		ls := at(s.File, s.Line)
		if !slices.Contains(ls.Sites, si) {
			ls.Sites = append(ls.Sites, si)
		}
		return ls
	}
	for i := range tl.Sites {
		siteLine(i)
	}
	for k, st := range tot.regions {
		if ls := siteLine(k.site); ls != nil {
			ls.Time += st.Time
			ls.Calls += st.Calls
			if k.kind == KindPDO {
				ls.Imbalance = max(ls.Imbalance, imbalance(tot.siteProc, k.site, tl.Procs))
			}
		}
	}
	for k, st := range tot.waits {
		if ls := siteLine(k.site); ls != nil {
			ls.Wait += st.Time
			ls.Waits += st.Calls
		}
	}
	for i := range tl.Messages {
		m := &tl.Messages[i]
		for _, si := range []int{m.SendSite, m.RecvSite} {
			if ls := siteLine(si); ls != nil {
				ls.Messages++
				ls.Bytes += m.Bytes
			}
		}
	}
	for i := range tl.Instants {
		in := &tl.Instants[i]
		if in.Tag == trace.TagReadPageFaultServiced || in.Tag == trace.TagWritePageFaultServiced {
			if ls := siteLine(in.Site); ls != nil {
				ls.Faults++
			}
		}
	}
	for _, n := range tl.Notes {
		ls := at(n.File, n.Line)
		ls.Notes = append(ls.Notes, n)
	}
	var out []SourceFile
	for _, name := range tl.sourceNames() {
		sf := SourceFile{Name: name}
		sf.Text, sf.Known = tl.Sources[name]
		for _, ls := range lines[name] {
			slices.Sort(ls.Sites)
			sf.Lines = append(sf.Lines, *ls)
		}
		slices.SortFunc(sf.Lines, func(a, b LineStat) int { return cmp.Compare(a.Line, b.Line) })
		out = append(out, sf)
	}
	return out
}

// imbalance is (max − mean) / max of the processors' busy times at a
// site.
func imbalance(siteProc map[[2]int]float64, site, procs int) float64 {
	var sum, hi float64
	for p := range procs {
		t := siteProc[[2]int{site, p}]
		sum += t
		hi = max(hi, t)
	}
	if hi <= 0 || procs == 0 {
		return 0
	}
	return (hi - sum/float64(procs)) / hi
}
