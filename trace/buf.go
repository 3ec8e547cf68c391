package trace

import (
	"encoding/binary"
	"math"
)

// Binary packet layout (little-endian; see doc.go for the whole file format):
//
//	int32 length   bytes that follow the length field
//	int32 kind     PacketData, PacketDescriptor, PacketAttributes
//	...            for data: int32 tag, then the fields in descriptor order
//
// Buf appends data packets in exactly this layout, so the runtime's
// per-processor buffers are binary SDDF already and a binary trace is written
// by copying them.

// Packet kinds of the binary format.
const (
	PacketAttributes = 1
	PacketDescriptor = 2
	PacketData       = 3
)

// Buf is an append-only buffer of binary data packets. The zero value is
// ready to use. Calls between Begin and End must follow the field order of
// the record's descriptor; Buf does not check (the reader does).
type Buf struct {
	B     []byte
	start int // offset of the length field of the open record
	n     int // records completed
}

// Begin opens a record of the given tag with its node id and clock fields,
// which every svmc record starts with.
func (b *Buf) Begin(tag Tag, node int, clock float64) {
	b.start = len(b.B)
	b.B = binary.LittleEndian.AppendUint32(b.B, 0) // patched by End
	b.B = binary.LittleEndian.AppendUint32(b.B, PacketData)
	b.B = binary.LittleEndian.AppendUint32(b.B, uint32(tag))
	b.Int(node)
	b.Double(clock)
}

// Int appends an int field. SDDF has no 64-bit integer; values are stored as
// 32-bit two's complement (callers split wider values, e.g. addresses).
func (b *Buf) Int(v int) {
	b.B = binary.LittleEndian.AppendUint32(b.B, uint32(int32(v)))
}

// Double appends a double field.
func (b *Buf) Double(v float64) {
	b.B = binary.LittleEndian.AppendUint64(b.B, math.Float64bits(v))
}

// Ints appends a one-dimensional int array.
func (b *Buf) Ints(v []int) {
	b.Int(len(v))
	for _, x := range v {
		b.Int(x)
	}
}

// Chars appends a one-dimensional char array: the bytes of s.
func (b *Buf) Chars(s string) {
	b.Int(len(s))
	b.B = append(b.B, s...)
}

// IntRows appends a two-dimensional int array of len(v)/cols rows, row-major.
// cols should divide len(v); an empty v writes a 0 x cols array. The packet
// stays well-formed whatever the arguments: only the rows*cols elements that
// make whole rows are written, and a negative cols counts as 0.
func (b *Buf) IntRows(cols int, v []int) {
	rows := 0
	if cols > 0 {
		rows = len(v) / cols
	} else {
		cols = 0
	}
	b.Int(rows)
	b.Int(cols)
	for _, x := range v[:rows*cols] {
		b.Int(x)
	}
}

// Rec3 appends a whole record of three int fields after the node id and
// clock (a region record's subprogram, directive and type), the most
// frequent records: one check of the room left where Begin, three Ints
// and End make eight appends.
func (b *Buf) Rec3(tag Tag, node int, clock float64, f1, f2, f3 int) {
	const size = 36
	n := len(b.B)
	if cap(b.B)-n < size {
		b.Begin(tag, node, clock)
		b.Int(f1)
		b.Int(f2)
		b.Int(f3)
		b.End()
		return
	}
	r := b.B[n : n+size]
	le := binary.LittleEndian
	le.PutUint32(r[0:], size-4)
	le.PutUint32(r[4:], PacketData)
	le.PutUint32(r[8:], uint32(tag))
	le.PutUint32(r[12:], uint32(int32(node)))
	le.PutUint64(r[16:], math.Float64bits(clock))
	le.PutUint32(r[24:], uint32(int32(f1)))
	le.PutUint32(r[28:], uint32(int32(f2)))
	le.PutUint32(r[32:], uint32(int32(f3)))
	b.B = b.B[:n+size]
	b.start = n
	b.n++
}

// End closes the record opened by Begin.
func (b *Buf) End() {
	binary.LittleEndian.PutUint32(b.B[b.start:], uint32(len(b.B)-b.start-4))
	b.n++
}

// Open is the offset of the open record (between Begin and End).
func (b *Buf) Open() int { return b.start }

// Len is the number of bytes held.
func (b *Buf) Len() int { return len(b.B) }

// Records is the number of completed records held.
func (b *Buf) Records() int { return b.n }

// Reset empties the buffer, keeping its memory.
func (b *Buf) Reset() { b.B = b.B[:0]; b.n = 0 }
