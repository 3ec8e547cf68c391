package request

import (
	"math/bits"
	"strings"

	"github.com/svmc/svmc/trace"
)

// Mask is a set of record kinds: one bit per record tag. The bits follow the
// tag groups of the catalogue in order, packed; the 25 bits left take the
// tags svmc adds from #2001 and #2101 up:
//
//	bits  0- 9  #1001-#1010  SVM kernel page events
//	bits 10-20  #1101-#1111  synchronisation
//	bits 21-23  #1201-#1203  run-time support
//	bits 24-35  #1301-#1312  regions and global scheduling
//	bits 36-38  #1401-#1403  overhead
//	bits 39-55  #2001-#2017  records svmc adds (TagPDOWork is #2001)
//	bits 56-63  #2101-#2108  message passing
//
// A tag outside these ranges has no bit (MaskOf returns 0). Masks are never
// stored outside a run, so the layout may change when tags are added.
type Mask uint64

// MaskOf returns the bit of tag, or 0 if tag has none. It is one table
// load, and inlined.
func MaskOf(tag trace.Tag) Mask {
	if i := uint(tag - firstTag); i < uint(len(bitTable)) {
		return bitTable[i]
	}
	return 0
}

// firstTag and lastTag bound the tags that have a bit.
const firstTag, lastTag = 1001, 2108

// bitTable[tag-firstTag] is the bit of tag.
var bitTable = func() (t [lastTag - firstTag + 1]Mask) {
	for tag := trace.Tag(firstTag); tag <= lastTag; tag++ {
		t[tag-firstTag] = maskOf(tag)
	}
	return t
}()

// maskOf computes the bit of tag from the layout above.
func maskOf(tag trace.Tag) Mask {
	var b trace.Tag
	switch {
	case tag >= 1001 && tag <= 1010:
		b = tag - 1001
	case tag >= 1101 && tag <= 1111:
		b = tag - 1101 + 10
	case tag >= 1201 && tag <= 1203:
		b = tag - 1201 + 21
	case tag >= 1301 && tag <= 1312:
		b = tag - 1301 + 24
	case tag >= 1401 && tag <= 1403:
		b = tag - 1401 + 36
	case tag >= 2001 && tag <= 2017:
		b = tag - 2001 + 39
	case tag >= 2101 && tag <= 2108:
		b = tag - 2101 + 56
	default:
		return 0
	}
	return 1 << uint(b)
}

// MaskOfTags is the union of the bits of tags.
func MaskOfTags(tags ...trace.Tag) Mask {
	var m Mask
	for _, t := range tags {
		m |= MaskOf(t)
	}
	return m
}

// Has reports whether records with tag are in m.
func (m Mask) Has(tag trace.Tag) bool { return m&MaskOf(tag) != 0 }

// Tags lists the catalogued tags in m, in catalogue order.
func (m Mask) Tags() []trace.Tag {
	var out []trace.Tag
	for _, d := range trace.Catalog {
		if m.Has(d.Tag) {
			out = append(out, d.Tag)
		}
	}
	return out
}

// Names lists the record names of the catalogued tags in m, in catalogue
// order.
func (m Mask) Names() []string {
	var out []string
	for _, d := range trace.Catalog {
		if m.Has(d.Tag) {
			out = append(out, d.Name)
		}
	}
	return out
}

// String is Names joined by commas.
func (m Mask) String() string { return strings.Join(m.Names(), ",") }

// Len is the number of record kinds in m.
func (m Mask) Len() int { return bits.OnesCount64(uint64(m)) }

// MaxStage is the highest tracing stage.
const MaxStage = 6

// stageMasks[s] is StageMask(s).
var stageMasks = func() (t [MaxStage + 1]Mask) {
	for _, d := range trace.Catalog {
		for s := max(trace.Stage(d.Tag), 1); s <= MaxStage; s++ {
			t[s] |= MaskOf(d.Tag)
		}
	}
	return t
}()

// StageMask returns the records stage enables (seed 002, Table 2, as
// trace.Stage assigns them): nothing at stage 0, and at stage s every
// catalogued record whose trace.Stage is at most s. A stage below 0 counts as
// 0, above MaxStage as MaxStage.
func StageMask(stage int) Mask {
	return stageMasks[min(max(stage, 0), MaxStage)]
}
