package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
)

// Reader reads an SDDF stream, ASCII or binary (detected from the header).
// The stream is self-describing: records are decoded with the descriptors
// the stream holds, not with Catalog. Memory use is bounded by the largest
// packet (binary) or token (ASCII), not by the length of the stream.
type Reader struct {
	name   string
	format Format
	src    io.Reader

	// Input buffer: buf[pos:end] is unread; base is the stream offset of buf[0].
	buf    []byte
	pos    int
	end    int
	base   int64
	eof    bool  // src returned EOF or an error
	rerr   error // the read error, if not EOF
	stalls int

	attrs   []Attr
	descs   []*Descriptor
	byTag   map[Tag]*Descriptor
	byName  map[string]*Descriptor
	nrec    int       // data records returned
	lastOff int64     // offset of the last of them (or of the blanks before it)
	slab    slab      // allocates decoded records
	raw     []rawDesc // by tag: NextData's fast path (raw.go)
	segs    [][]byte  // NewBytesReader's input: buf is one of them, or a join
	segi    int       // the next of segs
	err     error     // sticky

	// ASCII lexer state.
	peeked  bool
	tk      token
	scratch []byte
}

// packet kinds returned by next, besides PacketData etc.
type packet struct {
	kind  int
	rec   *Record
	desc  *Descriptor
	attrs []Attr
	// hidden: an attribute packet of the run index only
	hidden bool
}

// NewReader reads the header and the leading stream attributes of an SDDF
// stream. Errors name the file if r has a Name method (as *os.File has),
// otherwise "input".
func NewReader(r io.Reader) (*Reader, error) {
	name := "input"
	if n, ok := r.(interface{ Name() string }); ok && n.Name() != "" {
		name = n.Name()
	}
	return NewNamedReader(r, name)
}

// NewNamedReader is NewReader with the name used in error messages.
func NewNamedReader(r io.Reader, name string) (*Reader, error) {
	return start(&Reader{name: name, src: r, buf: make([]byte, 4<<10)})
}

// start reads the header and the leading stream attributes of a new
// Reader.
func start(rd *Reader) (*Reader, error) {
	rd.byTag = make(map[Tag]*Descriptor)
	rd.byName = make(map[string]*Descriptor)
	if err := rd.readHeader(); err != nil {
		rd.err = err
		return nil, err
	}
	if err := rd.readLeadingAttrs(); err != nil {
		rd.err = err
		return nil, err
	}
	return rd, nil
}

// Format is the stream's format.
func (r *Reader) Format() Format { return r.format }

// Attrs returns the stream attributes read so far (the leading ones after
// NewReader; attribute packets later in the stream are appended as Next
// passes them).
func (r *Reader) Attrs() []Attr { return r.attrs }

// All returns an iterator over the data records that are still to be read:
// each record with a nil error and, if the stream is damaged, then one nil
// record with the error (the same as Next's). The end of the stream ends
// the iteration.
func (r *Reader) All() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for {
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// Descriptors returns the descriptors read so far, in stream order.
func (r *Reader) Descriptors() []*Descriptor { return r.descs }

// Next returns the next data record, or io.EOF at the end of the stream.
// After an error every call returns the same error. The returned record is
// the caller's: the Reader does not reuse it.
func (r *Reader) Next() (*Record, error) {
	for {
		p, err := r.next()
		if err != nil {
			return nil, err
		}
		if p.kind == PacketData {
			return p.rec, nil
		}
	}
}

// next returns the next packet of any kind.
func (r *Reader) next() (packet, error) {
	if r.err != nil {
		return packet{}, r.err
	}
	var p packet
	var err error
	start := r.offset()
	if r.format == ASCII {
		p, err = r.nextASCII()
	} else {
		p, err = r.nextBinary()
		for err == nil && p.hidden {
			start = r.offset()
			p, err = r.nextBinary()
		}
	}
	if err != nil {
		r.err = err
		return packet{}, err
	}
	if p.kind == PacketData {
		r.nrec++
		r.lastOff = start
	}
	return p, nil
}

// BadRecord is the error for the last record Next returned, which is well
// formed but holds a value its reader cannot accept (a processor the run
// did not have, a clock that is no number): a CorruptError with its offset
// and number.
func (r *Reader) BadRecord(rec *Record, msg string) error {
	return &CorruptError{Name: r.name, Offset: r.lastOff, Where: fmt.Sprintf("record %q #%d", rec.Desc.Name, r.nrec), Msg: msg}
}

// LastRecord is the stream offset and the number (from 1) of the last
// data record read: what BadRecord names, for a caller that tells later.
func (r *Reader) LastRecord() (offset int64, number int) { return r.lastOff, r.nrec }

// BadRecordAt is BadRecord for the record of descriptor d that LastRecord
// placed at offset and number.
func (r *Reader) BadRecordAt(d *Descriptor, offset int64, number int, msg string) error {
	return &CorruptError{Name: r.name, Offset: offset, Where: fmt.Sprintf("record %q #%d", d.Name, number), Msg: msg}
}

// offset is the stream offset of the next unread byte.
func (r *Reader) offset() int64 { return r.base + int64(r.pos) }

// eofOffset is the stream offset of the end of the data read so far.
func (r *Reader) eofOffset() int64 { return r.base + int64(r.end) }

func (r *Reader) corrupt(off int64, where, format string, args ...any) error {
	return &CorruptError{Name: r.name, Offset: off, Where: where, Msg: fmt.Sprintf(format, args...)}
}

// truncated is the error for input that ends early; a read error other than
// EOF is reported as such.
func (r *Reader) truncated(where, format string, args ...any) error {
	msg := "unexpected end of input"
	if r.rerr != nil {
		msg = "read error: " + r.rerr.Error()
	}
	if format != "" {
		msg += ": " + fmt.Sprintf(format, args...)
	}
	return &CorruptError{Name: r.name, Offset: r.eofOffset(), Where: where, Msg: msg}
}

func (r *Reader) recWhere(name string) string {
	return fmt.Sprintf("record %q #%d", name, r.nrec+1)
}

// fill makes at least n unread bytes available, reading as needed. It returns
// false if the input ends (or fails) first. The buffer grows only when it is
// full of data read, so its size stays within twice the largest n asked for.
func (r *Reader) fill(n int) bool {
	if r.segs != nil {
		return r.fillSegs(n)
	}
	for r.end-r.pos < n {
		if r.eof {
			return false
		}
		if r.pos > 0 {
			// Shrink a buffer grown for one big packet once it is consumed.
			if len(r.buf) > 1<<20 && r.end-r.pos <= 64<<10 && n <= 64<<10 {
				nb := make([]byte, 64<<10)
				r.end = copy(nb, r.buf[r.pos:r.end])
				r.buf = nb
			} else {
				r.end = copy(r.buf, r.buf[r.pos:r.end])
			}
			r.base += int64(r.pos)
			r.pos = 0
		}
		// Grow when full, or (up to 64 KiB, for fewer system calls) when
		// the stream has proved longer than a few small reads.
		if r.end == len(r.buf) || len(r.buf) < 64<<10 && r.base > 4*int64(len(r.buf)) {
			nb := make([]byte, 2*len(r.buf))
			copy(nb, r.buf[:r.end])
			r.buf = nb
		}
		m, err := r.src.Read(r.buf[r.end:])
		if m < 0 || m > len(r.buf)-r.end {
			r.eof, r.rerr = true, errors.New("invalid Read count")
			return false
		}
		r.end += m
		switch {
		case err == io.EOF:
			r.eof = true
		case err != nil:
			r.eof, r.rerr = true, err
		case m == 0:
			if r.stalls++; r.stalls > 100 {
				r.eof, r.rerr = true, io.ErrNoProgress
			}
		default:
			r.stalls = 0
		}
	}
	return true
}

func (r *Reader) readHeader() error {
	if !r.fill(5) {
		if r.rerr == nil && r.end == 0 {
			return r.corrupt(0, "", "empty input, not an SDDF stream")
		}
		return r.truncated("", "in the SDDF header")
	}
	magic := string(r.buf[r.pos : r.pos+5])
	switch magic {
	case asciiMagic:
		r.format = ASCII
		r.pos += 5
		if !r.fill(1) {
			return r.truncated("", "in the SDDF header")
		}
		if r.buf[r.pos] == '\r' {
			r.pos++
			if !r.fill(1) {
				return r.truncated("", "in the SDDF header")
			}
		}
		if r.buf[r.pos] != '\n' {
			return r.corrupt(r.offset(), "", "SDDFA not followed by a newline")
		}
		r.pos++
		return nil
	case binaryMagic:
		r.format = Binary
		if !r.fill(binHeaderSize) {
			return r.truncated("", "in the %d-byte SDDFB header", binHeaderSize)
		}
		h := r.buf[r.pos : r.pos+binHeaderSize]
		names := [...]string{"header size", "byte order", "int representation", "float representation",
			"double representation", "extra-float representation", "char representation",
			"char size", "short size", "int size", "long size", "float size", "double size", "long double size"}
		for i := 5; i < binHeaderSize; i++ {
			// short, long and long double sizes are not used by any SDDF type.
			if i == 13 || i == 15 || i == 18 {
				continue
			}
			if h[i] != binHeader[i] {
				what := ""
				switch {
				case i == 6 && h[i] == 0:
					what = " (big-endian streams are not supported)"
				}
				return r.corrupt(int64(i), "", "SDDFB %s is %d, want %d%s", names[i-5], h[i], binHeader[i], what)
			}
		}
		r.pos += binHeaderSize
		return nil
	}
	return r.corrupt(0, "", "not an SDDF stream (starts %q, want SDDFA or SDDFB)", magic)
}

// readLeadingAttrs reads the attribute packets before the first other packet.
func (r *Reader) readLeadingAttrs() error {
	if r.format == ASCII {
		for {
			t, err := r.lex()
			if err != nil {
				return err
			}
			if t.kind != tOpen {
				r.unlex(t)
				return nil
			}
			if _, err := r.asciiAttrBlock(); err != nil {
				return err
			}
		}
	}
	le := binary.LittleEndian
	for {
		if !r.fill(8) || le.Uint32(r.buf[r.pos+4:]) != PacketAttributes {
			return nil // next reports truncation or the packet
		}
		if _, err := r.nextBinary(); err != nil {
			return err
		}
	}
}

// addDesc registers a descriptor read from the stream.
func (r *Reader) addDesc(d *Descriptor, off int64) (*Descriptor, error) {
	where := fmt.Sprintf("descriptor #%d %q", d.Tag, d.Name)
	if old := r.byTag[d.Tag]; old != nil {
		if sameDesc(old, d) {
			return old, nil
		}
		return nil, r.corrupt(off, where, "tag %d already describes %q differently", d.Tag, old.Name)
	}
	if old := r.byName[d.Name]; old != nil {
		return nil, r.corrupt(off, where, "name %q already used by descriptor #%d", d.Name, old.Tag)
	}
	r.byTag[d.Tag] = d
	r.byName[d.Name] = d
	r.descs = append(r.descs, d)
	r.addRaw(d)
	return d, nil
}

// nextBinary reads one binary packet.
func (r *Reader) nextBinary() (packet, error) {
	le := binary.LittleEndian
	if !r.fill(4) {
		if r.end == r.pos && r.rerr == nil {
			return packet{}, io.EOF
		}
		return packet{}, r.truncated("", "in a packet length")
	}
	start := r.offset()
	n := int64(le.Uint32(r.buf[r.pos:]))
	if n < 4 || n > MaxPacket {
		return packet{}, r.corrupt(start, "", "bad packet length %d", n)
	}
	if !r.fill(4 + int(n)) {
		where := ""
		if r.end-r.pos >= 12 && le.Uint32(r.buf[r.pos+4:]) == PacketData {
			if d := r.byTag[Tag(le.Uint32(r.buf[r.pos+8:]))]; d != nil {
				where = r.recWhere(d.Name)
			}
		}
		return packet{}, r.truncated(where, "packet at offset %d of %d bytes has only %d", start, n, r.end-r.pos-4)
	}
	body := r.buf[r.pos+4 : r.pos+4+int(n)]
	r.pos += 4 + int(n)
	kind := le.Uint32(body)
	c := binCursor{r: r, p: body, off: 4, base: start + 4}
	switch kind {
	case PacketData:
		tag := Tag(c.int32())
		if c.err != nil {
			return packet{}, r.corrupt(c.errOff, "", "data packet without a tag")
		}
		d := r.byTag[tag]
		if d == nil {
			return packet{}, r.corrupt(start+8, fmt.Sprintf("record #%d", r.nrec+1), "no descriptor for tag %d", tag)
		}
		rec := r.slab.record(d)
		if e := decodeData(d, body[8:], rec, nil, &r.slab); e != nil {
			return packet{}, r.corrupt(start+12+int64(e.off), r.recWhere(d.Name), "%s", e.msg)
		}
		return packet{kind: PacketData, rec: rec}, nil
	case PacketAttributes:
		cnt := c.count("attribute count", MaxAttrs, 8)
		var attrs []Attr
		for i := 0; i < cnt && c.err == nil; i++ {
			k := c.str("attribute key")
			v := c.str("attribute value")
			attrs = append(attrs, Attr{k, v})
		}
		c.done()
		if c.err != nil {
			return packet{}, r.corrupt(c.errOff, "attribute packet", "%s", c.err)
		}
		// The run index (runs.go) is the stream's framing, not its content.
		kept := withoutRunIndex(attrs)
		r.attrs = append(r.attrs, kept...)
		return packet{kind: PacketAttributes, attrs: kept, hidden: len(kept) == 0 && len(attrs) > 0}, nil
	case PacketDescriptor:
		d := &Descriptor{Tag: Tag(c.int32())}
		d.Name = c.str("record name")
		na := c.count("attribute count", MaxAttrs, 8)
		for i := 0; i < na && c.err == nil; i++ {
			k := c.str("attribute key")
			v := c.str("attribute value")
			if k == "event" {
				d.Event = v
			}
		}
		nf := c.count("field count", MaxFields, 12)
		if c.err == nil && nf > 0 {
			d.Fields = make([]Field, 0, nf)
		}
		for i := 0; i < nf && c.err == nil; i++ {
			toff := c.off
			t := c.int32()
			doff := c.off
			dims := c.int32()
			name := c.str("field name")
			if c.err != nil {
				break
			}
			if t < int32(Char) || t > int32(Double) {
				c.fail(toff, fmt.Errorf("field %q: bad type %d", name, t))
				break
			}
			if dims < 0 || dims > MaxDims {
				c.fail(doff, fmt.Errorf("field %q: bad dimension count %d", name, dims))
				break
			}
			d.Fields = append(d.Fields, Field{FieldType(t), name, int(dims)})
		}
		c.done()
		if c.err != nil {
			return packet{}, r.corrupt(c.errOff, fmt.Sprintf("descriptor #%d %q", d.Tag, d.Name), "%s", c.err)
		}
		d, err := r.addDesc(d, start)
		if err != nil {
			return packet{}, err
		}
		return packet{kind: PacketDescriptor, desc: d}, nil
	}
	return packet{}, r.corrupt(start+4, "", "unknown packet kind %d", kind)
}

// binCursor decodes the fields of a descriptor or attribute packet.
type binCursor struct {
	r      *Reader
	p      []byte
	off    int
	base   int64 // stream offset of p[0]
	err    error
	errOff int64
}

func (c *binCursor) fail(off int, err error) {
	if c.err == nil {
		c.err, c.errOff = err, c.base+int64(off)
	}
}

func (c *binCursor) int32() int32 {
	if c.err != nil {
		return 0
	}
	if len(c.p)-c.off < 4 {
		c.fail(c.off, errors.New("packet ends inside an int"))
		return 0
	}
	v := int32(binary.LittleEndian.Uint32(c.p[c.off:]))
	c.off += 4
	return v
}

// count reads a count of items of at least minSize bytes each.
func (c *binCursor) count(what string, max, minSize int) int {
	off := c.off
	n := c.int32()
	if c.err == nil && (n < 0 || int(n) > max || int(n) > (len(c.p)-c.off)/minSize) {
		c.fail(off, fmt.Errorf("bad %s %d", what, n))
		return 0
	}
	return int(n)
}

func (c *binCursor) str(what string) string {
	off := c.off
	n := c.int32()
	if c.err != nil {
		return ""
	}
	if n < 0 || int(n) > MaxString || int(n) > len(c.p)-c.off {
		c.fail(off, fmt.Errorf("bad %s length %d (%d bytes left)", what, n, len(c.p)-c.off))
		return ""
	}
	s := string(c.p[c.off : c.off+int(n)])
	c.off += int(n)
	return s
}

func (c *binCursor) done() {
	if c.err == nil && c.off != len(c.p) {
		c.fail(c.off, fmt.Errorf("%d bytes after the end of the packet's contents", len(c.p)-c.off))
	}
}
