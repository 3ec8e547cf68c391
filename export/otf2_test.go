//go:build otf2

package export_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/svmc/svmc/export"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
	"github.com/svmc/svmc/view"
)

// These tests write OTF2 through the reference library and read it back
// with the reference reader, otf2-print (Debian package otf2-tools,
// installed by .ci/setup.sh).

func otf2Print(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("otf2-print")
	if err != nil {
		t.Skip("otf2-print is not installed (.ci/setup.sh installs the Debian package otf2-tools)")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("otf2-print %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

var (
	regionRE   = regexp.MustCompile(`(?m)^REGION\s+(\d+)\s+Name: "([^"]*)".*Role: (\w+),.*Begin: (\d+), End: (\d+)`)
	locationRE = regexp.MustCompile(`(?m)^LOCATION\s+(\d+)\s+Name: "([^"]*)" <\d+>, Type: (\w+), # Events: (\d+), Group: "([^"]*)"`)
	groupRE    = regexp.MustCompile(`(?m)^LOCATION_GROUP\s+(\d+)\s+Name: "([^"]*)" <\d+>, Type: (\w+),`)
	eventRE    = regexp.MustCompile(`(?m)^(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: "([^"]*)" <(\d+)>`)
)

// archive is an OTF2 archive as otf2-print shows it.
type archive struct {
	roles     map[string]string // region name -> role
	locations map[int]string    // id -> "name type events group"
	groups    int
	enters    map[int]int      // per location
	byRegion  map[string]int   // enters per region name
	ticks     string           // the clock properties line
	events    map[int][]string // per location, "ENTER name" / "LEAVE name"
	raw       string
}

func writeAndRead(t *testing.T, tl *view.Timeline) (*archive, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "otf2")
	if err := export.WriteOTF2(dir, tl); err != nil {
		t.Fatal(err)
	}
	anchor := filepath.Join(dir, export.OTF2Archive+".otf2")
	a := &archive{roles: map[string]string{}, locations: map[int]string{}, enters: map[int]int{},
		byRegion: map[string]int{}, events: map[int][]string{}}
	defs := otf2Print(t, "-G", anchor)
	for _, m := range regionRE.FindAllStringSubmatch(defs, -1) {
		a.roles[m[2]] = m[3]
	}
	for _, m := range locationRE.FindAllStringSubmatch(defs, -1) {
		id, _ := strconv.Atoi(m[1])
		a.locations[id] = m[2] + " " + m[3] + " " + m[4] + " " + m[5]
	}
	a.groups = len(groupRE.FindAllStringSubmatch(defs, -1))
	for _, line := range strings.Split(defs, "\n") {
		if strings.HasPrefix(line, "CLOCK_PROPERTIES") {
			a.ticks = line
		}
	}
	evs := otf2Print(t, anchor)
	a.raw = evs
	last := map[int]uint64{}
	stacks := map[int][]string{}
	for _, m := range eventRE.FindAllStringSubmatch(evs, -1) {
		loc, _ := strconv.Atoi(m[2])
		ts, _ := strconv.ParseUint(m[3], 10, 64)
		if ts < last[loc] {
			t.Errorf("location %d: time %d after %d", loc, ts, last[loc])
		}
		last[loc] = ts
		a.events[loc] = append(a.events[loc], m[1]+" "+m[4])
		if m[1] == "ENTER" {
			a.enters[loc]++
			a.byRegion[m[4]]++
			stacks[loc] = append(stacks[loc], m[4])
			continue
		}
		st := stacks[loc]
		if len(st) == 0 || st[len(st)-1] != m[4] {
			t.Errorf("location %d: LEAVE %q does not close the innermost ENTER (%q)", loc, m[4], st)
		} else {
			stacks[loc] = st[:len(st)-1]
		}
	}
	for loc, st := range stacks {
		if len(st) > 0 {
			t.Errorf("location %d: regions entered and never left: %q", loc, st)
		}
	}
	return a, dir
}

// checkArchive compares an archive with the trace's census.
func checkArchive(t *testing.T, a *archive, dir string, c census, procs int) {
	t.Helper()
	if len(a.locations) != procs || a.groups != procs {
		t.Errorf("%d locations in %d location groups, want %d each", len(a.locations), a.groups, procs)
	}
	for p := 0; p < procs; p++ {
		name := "processor " + strconv.Itoa(p)
		want := fmt.Sprintf("%s CPU_THREAD %d %s", name, 2*c.slices[p]+c.mpi[p], name)
		if a.locations[p] != want {
			t.Errorf("location %d = %q, want %q", p, a.locations[p], want)
		}
		if a.enters[p] != c.slices[p] || len(a.events[p]) != 2*c.slices[p] {
			t.Errorf("location %d: %d enters of %d events, the trace has %d regions, waits and holds", p, a.enters[p], len(a.events[p]), c.slices[p])
		}
		// Every location's local definition file exists (OTF2's readers
		// need it even when empty).
		if _, err := os.Stat(filepath.Join(dir, export.OTF2Archive, strconv.Itoa(p)+".def")); err != nil {
			t.Errorf("location %d: %v", p, err)
		}
	}
	if !strings.Contains(a.ticks, "Ticks per Seconds: 1000000000") {
		t.Errorf("clock properties %q, want nanosecond ticks", a.ticks)
	}
}

func checkRoles(t *testing.T, a *archive, want map[string]string) {
	t.Helper()
	for name, role := range want {
		if a.roles[name] != role {
			t.Errorf("region %q has role %q, want %s (regions: %v)", name, a.roles[name], role, a.roles)
		}
	}
}

func TestOTF2Example31(t *testing.T) {
	data := fixture(t, "ex31.sddf")
	tl := timeline(t, data)
	c := count(t, data, nil)
	a, dir := writeAndRead(t, tl)
	checkArchive(t, a, dir, c, 4)
	checkRoles(t, a, map[string]string{
		"main": "FUNCTION", "G": "FUNCTION", "pdo fill": "LOOP", "pdo grid": "LOOP",
		"implicit barrier wait: pdo fill": "IMPLICIT_BARRIER",
	})
	// Enters per region against the records: pdo fill is directive 6 of
	// subprogram 1 (G), a region of type 4.
	fill := 0
	for p := range c.names {
		fill += c.names[p]["1/6/4"]
	}
	if fill != 4 || a.byRegion["pdo fill"] != fill {
		t.Errorf("pdo fill entered %d times, the trace starts it %d times (want 4)", a.byRegion["pdo fill"], fill)
	}
	// Other records are markers of their location.
	marker, err := os.ReadFile(filepath.Join(dir, export.OTF2Archive+".marker"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"svmc records", "template-info", "proc-arrangement", "pdo-info"} {
		if !bytes.Contains(marker, []byte(want)) {
			t.Errorf("the marker file lacks %q", want)
		}
	}
	// The writer does not overwrite an archive.
	if err := export.WriteOTF2(dir, tl); err == nil || !strings.Contains(err.Error(), "already holds") {
		t.Errorf("writing over an archive: %v", err)
	}
}

func TestOTF2Jacobi(t *testing.T) {
	data := fixture(t, "jacobi.sddf")
	a, dir := writeAndRead(t, timeline(t, data))
	checkArchive(t, a, dir, count(t, data, nil), 4)
	checkRoles(t, a, map[string]string{"pdo sweep": "LOOP", "implicit barrier wait: pdo update": "IMPLICIT_BARRIER"})
}

func TestOTF2SyncKinds(t *testing.T) {
	data, err := tracetest.Sync2().Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	atomic := map[[2]int]bool{{tracetest.SubMain, tracetest.DirAtomic}: true}
	a, dir := writeAndRead(t, timeline(t, data))
	checkArchive(t, a, dir, count(t, data, atomic), 2)
	holds := count(t, data, atomic).holds
	if acq, rel := strings.Count(a.raw, "THREAD_ACQUIRE_LOCK"), strings.Count(a.raw, "THREAD_RELEASE_LOCK"); acq != holds || rel != holds || holds == 0 {
		t.Errorf("%d lock acquisitions and %d releases, the trace holds locks %d times", acq, rel, holds)
	}
	checkRoles(t, a, map[string]string{
		"main":                           "FUNCTION",
		"Work":                           "FUNCTION",
		"trace_region phase":             "CODE",
		"lock wait: lock main.go:22":     "CODE",
		"lock held: lock main.go:22":     "CODE",
		"lock wait: atomic main.go:30":   "ATOMIC",
		"critical wait: critical upd":    "CRITICAL",
		"critical section: critical upd": "CRITICAL_SBLOCK",
		"barrier checkout wait: barrier_checkout main.go:28": "BARRIER",
		"replicated main.go:32":                              "PARALLEL",
		"implicit barrier wait: replicated main.go:32":       "IMPLICIT_BARRIER",
		"psection main.go:36":                                "SECTIONS",
		"section main.go:37":                                 "SECTION",
		"pdo work":                                           "LOOP",
		"barrier wait: barrier main.go:20":                   "BARRIER",
	})
	// Processor 1's critical section follows processor 0's: the archive's
	// times keep the order.
	if !strings.Contains(a.raw, "critical section: critical upd") {
		t.Error("no critical section in the events")
	}
}

// TestOTF2Messages: the halo exchange's messages are MPI_SEND and MPI_RECV
// events of one communicator, each receive naming its sender, and its
// Gather a collective of that communicator.
func TestOTF2Messages(t *testing.T) {
	data := fixture(t, "halo.sddf")
	tl := timeline(t, data)
	a, dir := writeAndRead(t, tl)
	checkArchive(t, a, dir, count(t, data, nil), 4)
	sends := regexp.MustCompile(`(?m)^MPI_SEND\s+(\d+)\s+\d+\s+Receiver: (\d+) \([^)]*\), Communicator: "svmc processors"`).FindAllStringSubmatch(a.raw, -1)
	recvs := regexp.MustCompile(`(?m)^MPI_RECV\s+(\d+)\s+\d+\s+Sender: (\d+) \([^)]*\), Communicator: "svmc processors"`).FindAllStringSubmatch(a.raw, -1)
	if len(sends) != len(tl.Messages) || len(recvs) != len(tl.Messages) {
		t.Fatalf("%d MPI_SEND and %d MPI_RECV events for %d messages\n%.3000s", len(sends), len(recvs), len(tl.Messages), a.raw)
	}
	for _, m := range append(sends, recvs...) {
		loc, _ := strconv.Atoi(m[1])
		peer, _ := strconv.Atoi(m[2])
		if loc-peer != 1 && peer-loc != 1 {
			t.Errorf("a message between processors %d and %d, which are no neighbours", loc, peer)
		}
	}
	if n := strings.Count(a.raw, "MPI_COLLECTIVE_END"); n != 4 {
		t.Errorf("%d MPI_COLLECTIVE_END events, want the Gather on 4 processors", n)
	}
	checkRoles(t, a, map[string]string{"message call: Sendrecv main.go:45": "POINT2POINT", "collective: Gather main.go:71": "COLL_ALL2ONE"})
	// The replicated region: one fork and one join, by processor 0, for 4.
	if forks := regexp.MustCompile(`(?m)^THREAD_FORK\s+0\s+\d+\s+Model: OPENMP, # Requested Threads: 4`).FindAllString(a.raw, -1); len(forks) != 1 || strings.Count(a.raw, "THREAD_JOIN") != 1 {
		t.Errorf("forks %q and %d joins, want one of each on processor 0", forks, strings.Count(a.raw, "THREAD_JOIN"))
	}
}
