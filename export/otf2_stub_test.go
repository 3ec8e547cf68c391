//go:build !otf2

package export_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/svmc/svmc/export"
)

// TestOTF2NotBuilt: without the otf2 tag the writer says how to get it.
func TestOTF2NotBuilt(t *testing.T) {
	tl := timeline(t, fixture(t, "ex31.sddf"))
	err := export.WriteOTF2(t.TempDir(), tl)
	if !errors.Is(err, export.ErrNoOTF2) || export.OTF2Available {
		t.Fatalf("WriteOTF2 without the otf2 tag: %v", err)
	}
	for _, want := range []string{"go build -tags otf2 ./cmd/svmc", "libotf2-trace-dev"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
}
