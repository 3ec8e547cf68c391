package trace

import (
	"encoding/binary"
	"fmt"
	"io"
)

// The raw reading of a binary stream: NextData hands out each data record
// as its descriptor and the bytes of its fields, checked but not decoded,
// so that a reader that needs a few fields of every record (the tools'
// replay) reads them where they lie, without a Record per record. Reading
// that way allocates nothing per record.

// FixedSize is the byte length of the fields of a data record of d when d
// has no array field (then every record has it), or -1.
func (d *Descriptor) FixedSize() int {
	n := 0
	for _, f := range d.Fields {
		if f.Dims != 0 {
			return -1
		}
		n += elemSize(f.Type)
	}
	return n
}

// FieldOffset is the byte offset of field i in a data record's fields
// when every field before it is a scalar (so the offset is the same in
// every record), or -1.
func (d *Descriptor) FieldOffset(i int) int {
	off := 0
	for k := 0; k < i; k++ {
		if d.Fields[k].Dims != 0 {
			return -1
		}
		off += elemSize(d.Fields[k].Type)
	}
	return off
}

// NextData returns the next data record of a binary stream: its
// descriptor and the bytes of its fields (what follows the tag, laid out
// as trace/doc.go says), checked against the descriptor as Next checks
// them. The bytes are the reader's: valid until the next call. Other
// packets are taken in passing, as Next takes them. At the end it returns
// io.EOF; an ASCII stream is read with Next.
func (r *Reader) NextData() (*Descriptor, []byte, error) {
	if r.format != Binary {
		return nil, nil, fmt.Errorf("trace: %s: NextData reads binary streams only", r.name)
	}
	le := binary.LittleEndian
	for {
		if r.err != nil {
			return nil, nil, r.err
		}
		// The common case inline: a whole data packet in the buffer whose
		// descriptor is known and whose fields have a fixed size.
		if r.end-r.pos >= 12 {
			b := r.buf[r.pos:r.end]
			n := int(le.Uint32(b))
			if n >= 8 && n <= MaxPacket && 4+n <= len(b) && le.Uint32(b[4:]) == PacketData {
				if di := r.fast(Tag(le.Uint32(b[8:]))); di != nil && (di.size == n-8 || di.size < 0 && fits(di.d, b[12:4+n])) {
					start := r.offset()
					r.pos += 4 + n
					r.nrec++
					r.lastOff = start
					return di.d, b[12 : 4+n], nil
				}
			}
		}
		d, body, ok, err := r.nextDataSlow()
		if err != nil {
			r.err = err
			return nil, nil, err
		}
		if ok {
			return d, body, nil
		}
	}
}

// rawDesc is what NextData keeps of a descriptor.
type rawDesc struct {
	d    *Descriptor
	size int // FixedSize
}

// fast returns the raw descriptor of tag (size -1 when it has arrays),
// nil if it is unknown.
func (r *Reader) fast(tag Tag) *rawDesc {
	if uint(tag) < uint(len(r.raw)) {
		if di := &r.raw[tag]; di.d != nil {
			return di
		}
	}
	return nil
}

// nextDataSlow reads one packet the way next does, and for a data packet
// checks its fields without decoding them. ok is false for a packet that
// is no data record.
func (r *Reader) nextDataSlow() (*Descriptor, []byte, bool, error) {
	le := binary.LittleEndian
	if !r.fill(4) {
		if r.end == r.pos && r.rerr == nil {
			return nil, nil, false, io.EOF
		}
		return nil, nil, false, r.truncated("", "in a packet length")
	}
	if !r.fill(8) || le.Uint32(r.buf[r.pos+4:]) != PacketData {
		// Not a data packet (or a damaged one): next reads it, and
		// reports what is wrong.
		p, err := r.next()
		if err != nil {
			return nil, nil, false, err
		}
		if p.kind == PacketData { // unreachable: the kind was checked
			return nil, nil, false, r.corrupt(r.lastOff, "", "unexpected data packet")
		}
		return nil, nil, false, nil
	}
	start := r.offset()
	n := int64(le.Uint32(r.buf[r.pos:]))
	if n < 4 || n > MaxPacket {
		return nil, nil, false, r.corrupt(start, "", "bad packet length %d", n)
	}
	if !r.fill(4 + int(n)) {
		where := ""
		if r.end-r.pos >= 12 {
			if d := r.byTag[Tag(le.Uint32(r.buf[r.pos+8:]))]; d != nil {
				where = r.recWhere(d.Name)
			}
		}
		return nil, nil, false, r.truncated(where, "packet at offset %d of %d bytes has only %d", start, n, r.end-r.pos-4)
	}
	body := r.buf[r.pos+4 : r.pos+4+int(n)]
	if len(body) < 8 {
		return nil, nil, false, r.corrupt(start+8, "", "data packet without a tag")
	}
	tag := Tag(le.Uint32(body[4:]))
	d := r.lookup(tag)
	if d == nil {
		return nil, nil, false, r.corrupt(start+8, fmt.Sprintf("record #%d", r.nrec+1), "no descriptor for tag %d", tag)
	}
	if !fits(d, body[8:]) {
		if e := decodeData(d, body[8:], nil, nil, nil); e != nil {
			return nil, nil, false, r.corrupt(start+12+int64(e.off), r.recWhere(d.Name), "%s", e.msg)
		}
	}
	r.pos += 4 + int(n)
	r.nrec++
	r.lastOff = start
	return d, body[8:], true, nil
}

// lookup is r.byTag[tag] through the fast path's table where it can: a
// map lookup cost a tenth of reading the records with arrays.
func (r *Reader) lookup(tag Tag) *Descriptor {
	if uint(tag) < uint(len(r.raw)) {
		return r.raw[tag].d
	}
	return r.byTag[tag]
}

// fits reports whether p holds exactly the fields of d: what decodeData
// checks, without visiting the arrays' elements (decodeData says what is
// wrong when it does not).
func fits(d *Descriptor, p []byte) bool {
	le := binary.LittleEndian
	off := 0
	for i := range d.Fields {
		f := &d.Fields[i]
		sz := elemSize(f.Type)
		if f.Dims == 0 {
			off += sz
			continue
		}
		if len(p)-off < 4*f.Dims {
			return false
		}
		n := 1
		for range f.Dims {
			s := int(int32(le.Uint32(p[off:])))
			switch {
			case s < 0:
				return false
			case s != 0 && n > (len(p)+1)/s:
				n = len(p) + 1
			default:
				n *= s
			}
			off += 4
		}
		if n > MaxElems || n*sz > len(p)-off {
			return false
		}
		off += n * sz
	}
	return off == len(p)
}

// addRaw remembers a descriptor for NextData's fast path.
func (r *Reader) addRaw(d *Descriptor) {
	if d.Tag < 0 || int(d.Tag) >= maxRawTag {
		return
	}
	for int(d.Tag) >= len(r.raw) {
		r.raw = append(r.raw, rawDesc{})
	}
	r.raw[d.Tag] = rawDesc{d: d, size: d.FixedSize()}
}

// maxRawTag bounds the table of NextData's fast path (svmc's tags are
// below 2100); records of larger tags take the slow path.
const maxRawTag = 4096

// Record decodes the fields NextData returned for descriptor d into a
// Record, as Next would have returned it. The Record is the caller's.
func (r *Reader) Record(d *Descriptor, fields []byte) *Record {
	rec := r.slab.record(d)
	if e := decodeData(d, fields, rec, nil, &r.slab); e != nil {
		// NextData checked the fields: only other bytes fail here.
		rec = NewRecord(d)
	}
	return rec
}

// NewBytesReader reads the stream that is the concatenation of segs (the
// first beginning with the header) where it lies, without copying it: the
// memory of a mapped trace file, or of a trace held in memory. NextData's
// fields are then slices of segs. A packet should not straddle two
// segments (one that does is joined in a copy). The Reader never writes
// into segs.
func NewBytesReader(name string, segs ...[]byte) (*Reader, error) {
	// No io.Reader (eof): fillSegs takes the segments.
	return start(&Reader{name: name, segs: segs, eof: true})
}

// fillSegs is fill for NewBytesReader's segments: the next segment becomes
// the buffer once the current one is consumed.
func (r *Reader) fillSegs(n int) bool {
	for r.end-r.pos < n {
		if r.segi == len(r.segs) {
			return false
		}
		next := r.segs[r.segi]
		r.segi++
		if r.pos == r.end {
			r.base += int64(r.end)
			r.buf, r.pos, r.end = next, 0, len(next)
			continue
		}
		nb := make([]byte, r.end-r.pos+len(next))
		copy(nb, r.buf[r.pos:r.end])
		copy(nb[r.end-r.pos:], next)
		r.base += int64(r.pos)
		r.buf, r.pos, r.end = nb, 0, len(nb)
	}
	return true
}
