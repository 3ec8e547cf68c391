package view_test

import (
	"os"
	"testing"
	"time"

	"github.com/svmc/svmc/view"
)

func TestTmpBigLOD(t *testing.T) {
	f, err := os.Open("/tmp/big50.sddf")
	if err != nil {
		t.Skip()
	}
	defer f.Close()
	fi, _ := f.Stat()
	t0 := time.Now()
	l, err := view.BuildLOD(f, fi.Size(), "big", view.Options{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records, %d lanes in %v", l.Records, l.Procs, time.Since(t0))
	t1 := time.Now()
	mid := (l.Start + l.End) / 2
	w, err := l.Window(mid, mid+2000, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("window of 2 ms: %d intervals, %d events in %v", len(w.Intervals), len(w.Instants), time.Since(t1))
}
