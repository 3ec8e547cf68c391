package main

import (
	"bytes"
	"strings"
	"testing"
)

// raceReportText is a race detector report of two processors' accesses at
// main.go:15, the innermost frame in the runtime's map code (at).
func raceReportText(at string) string {
	return `==================
WARNING: DATA RACE
Read at 0x00c000120000 by goroutine 8:
  runtime.` + at + `()
      /usr/local/go/src/runtime/map.go:100 +0x1
  main.main.func1()
      /tmp/x/main.go:15 +0x2
  github.com/svmc/svmc/rtlib.svmcProcessor1()
      /root/.cache/svmc/runtime-1/rtlib/race.go:55 +0x3

Previous write at 0x00c000120000 by goroutine 7:
  runtime.mapassign()
      /usr/local/go/src/runtime/map.go:200 +0x1
  main.main.func1()
      /tmp/x/main.go:15 +0x2
  github.com/svmc/svmc/rtlib.svmcProcessor0()
      /root/.cache/svmc/runtime-1/rtlib/race.go:52 +0x3

Goroutine 8 (running) created at:
  github.com/svmc/svmc/rtlib.(*run).start()
      /root/.cache/svmc/runtime-1/rtlib/run.go:695 +0x4
==================
`
}

// TestRaceFilterSaysEachRaceOnce: the detector reports one pair of source
// lines once per pair of instructions (x203's counts[key(i)]++ gave every
// line twice); svmc says each once and counts both.
func TestRaceFilterSaysEachRaceOnce(t *testing.T) {
	var out bytes.Buffer
	f := &raceFilter{out: &out}
	f.run(strings.NewReader("before\n" + raceReportText("mapaccess1") + raceReportText("mapaccess2") + "after\n"))
	want := "before\nsvmc: data race: read at main.go:15 by processor 1, write at main.go:15 by processor 0\nafter\n"
	if out.String() != want {
		t.Errorf("filtered:\n%s\nwant:\n%s", out.String(), want)
	}
	if s := f.summary(); !strings.Contains(s, "found 1 data race (2 of its reports), at main.go:15") {
		t.Errorf("summary %q", s)
	}
}
