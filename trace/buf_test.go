package trace

import (
	"bytes"
	"testing"
)

// TestRec3: a record Rec3 appends whole has the bytes Begin, three Ints
// and End give it, with room to spare and without (its fallback), and the
// buffer counts it and knows where it begins as End leaves them.
func TestRec3(t *testing.T) {
	for _, room := range []int{0, 20, 36, 1 << 10} {
		var want, got Buf
		want.B = make([]byte, 5, 5+room)
		got.B = make([]byte, 5, 5+room)
		want.Begin(TagTraceRegionStart, 3, 12.5)
		want.Int(7)
		want.Int(-2)
		want.Int(RegionSubroutine)
		want.End()
		got.Rec3(TagTraceRegionStart, 3, 12.5, 7, -2, RegionSubroutine)
		if !bytes.Equal(got.B, want.B) || got.Records() != 1 || got.Open() != want.Open() {
			t.Errorf("room %d: Rec3 gave % x (%d records, open at %d); want % x (1, %d)", room, got.B, got.Records(), got.Open(), want.B, want.Open())
		}
	}
}
