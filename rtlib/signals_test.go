package rtlib

import (
	"context"
	"os"
	"syscall"
	"testing"
)

// TestProgramSignals: the registrations the runtime leaves signals to.
func TestProgramSignals(t *testing.T) {
	c := make(chan os.Signal, 1)
	SignalNotify(c, syscall.SIGTERM)
	if !programTakes(syscall.SIGTERM) || programTakes(syscall.SIGINT) {
		t.Error("Notify(c, SIGTERM)")
	}
	_, stop := SignalNotifyContext(context.Background())
	if !programTakes(syscall.SIGINT) {
		t.Error("NotifyContext with no signals takes them all")
	}
	stop()
	SignalReset(syscall.SIGTERM)
	if programTakes(syscall.SIGTERM) || programTakes(syscall.SIGINT) {
		t.Error("after stop and Reset(SIGTERM)")
	}
	SignalNotify(c)
	SignalStop(c)
	if programTakes(syscall.SIGINT) {
		t.Error("after Stop")
	}
}
