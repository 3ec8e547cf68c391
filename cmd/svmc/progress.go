package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// showProgress reports whether a command reading size bytes shows its
// progress: on a terminal, for traces over 32 MiB (SVMC_PROGRESS=1 forces
// it, SVMC_PROGRESS=0 turns it off).
func showProgress(size int64) bool {
	switch os.Getenv("SVMC_PROGRESS") {
	case "1":
		return true
	case "0":
		return false
	}
	st, err := os.Stderr.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && size > 32<<20
}

// readProgress wraps a trace input of size bytes for svmc view and export: while the command runs, a line on standard error says how much
// of it was read, as svmc report shows. stop ends it and clears the line.
func readProgress(command, name string, ra io.ReaderAt, size int64) (io.ReaderAt, func()) {
	if !showProgress(size) {
		return ra, func() {}
	}
	var read atomic.Int64
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	show := func() {
		// A binary trace is read more than once (its index, then each
		// processor's records), so the bytes read pass its size.
		fmt.Fprintf(os.Stderr, "\rsvmc %s: %s (%d MB): %d MB read, %.0fs ", command, name, size>>20, read.Load()>>20, time.Since(start).Seconds())
	}
	show()
	go func() {
		defer close(finished)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprintf(os.Stderr, "\r\033[K")
				return
			case <-t.C:
				show()
			}
		}
	}()
	return &countingReaderAt{ra: ra, n: &read}, func() { close(done); <-finished }
}
