package request

import (
	"testing"

	"github.com/svmc/svmc/trace"
)

const benchSrc = `CONFIG SVM_TraceStage: 1
REQUEST GLOBAL MappingInfo
REQUEST (0-3) LOCAL main.PDO_LABEL(sweep): (PDOInfo), (BARRIER)
REQUEST LOCAL Grid.Update.*: (*.SyncInfo)
REQUEST (5) LOCAL *.REG_LABEL(phase): (REGION)
`

var sinkMask Mask
var sinkBool bool

// BenchmarkEnter is the runtime's cost of entering a region.
func BenchmarkEnter(b *testing.B) {
	tab := mustCompile(b, benchSrc, 8)
	outer := tab.Base(2)
	b.ReportAllocs()
	var m Mask
	for i := 0; b.Loop(); i++ {
		m |= tab.Enter(i&7, 1+i&1, i&3, outer)
	}
	sinkMask = m
}

// BenchmarkMaskTest is a record site's test with a precomputed bit.
func BenchmarkMaskTest(b *testing.B) {
	tab := mustCompile(b, benchSrc, 8)
	m := tab.Enter(1, 1, 1, tab.Base(1))
	bit := MaskOf(trace.TagWaitBarrierStart)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if m&bit != 0 {
			n++
		}
	}
	sinkBool = n > 0
}

// BenchmarkMaskHas is a record site's test through MaskOf.
func BenchmarkMaskHas(b *testing.B) {
	tab := mustCompile(b, benchSrc, 8)
	m := tab.Enter(1, 1, 1, tab.Base(1))
	tags := []trace.Tag{trace.TagWaitBarrierStart, trace.TagPDOWork, trace.TagPrefetch, trace.TagTraceRegionStart}
	b.ReportAllocs()
	n := 0
	for i := 0; b.Loop(); i++ {
		if m.Has(tags[i&3]) {
			n++
		}
	}
	sinkBool = n > 0
}

// BenchmarkParseCompile is the start-up cost of a small request file.
func BenchmarkParseCompile(b *testing.B) {
	prog := testProg()
	b.ReportAllocs()
	for b.Loop() {
		f, err := Parse("b.req", []byte(benchSrc))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Compile(f, prog, 64); err != nil {
			b.Fatal(err)
		}
	}
}
