package trace

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// Writer writes an SDDF stream. All methods are safe for concurrent use; the
// runtime flushes its per-processor buffers through one Writer.
type Writer struct {
	mu      sync.Mutex
	bw      *bufio.Writer
	format  Format
	descs   map[Tag]*wdesc
	names   map[string]*wdesc
	scratch []byte
	err     error       // sticky
	runs    *RunTracker // binary: the runs written so far (runs.go), nil when there are too many
}

// wdesc is a descriptor already written, with its quoted ASCII name.
type wdesc struct {
	d     *Descriptor
	qname []byte // `"name" { `
}

// errClosed is returned by writes after Close.
var errClosed = errors.New("trace: write to closed Writer")

// NewWriter writes the header of an SDDF stream of format f to w, then the
// stream attributes attrs (if any), then the descriptor of every record of
// Catalog.
func NewWriter(w io.Writer, f Format, attrs []Attr) (*Writer, error) {
	return newWriter(w, f, attrs, Catalog)
}

// newWriter is NewWriter with the descriptors to write up front.
func newWriter(w io.Writer, f Format, attrs []Attr, descs []*Descriptor) (*Writer, error) {
	if f != ASCII && f != Binary {
		return nil, fmt.Errorf("trace: NewWriter: bad format %d", int(f))
	}
	tw := &Writer{
		bw:     bufio.NewWriterSize(w, 64<<10),
		format: f,
		descs:  make(map[Tag]*wdesc, len(descs)),
		names:  make(map[string]*wdesc, len(descs)),
	}
	if f == ASCII {
		tw.bw.WriteString(asciiMagic + "\n")
	} else {
		tw.bw.Write(binHeader[:])
		tw.runs = NewRunTracker(binHeaderSize)
	}
	if len(attrs) > 0 {
		if err := tw.writeAttrs(attrs); err != nil {
			return nil, err
		}
	}
	for _, d := range descs {
		if err := tw.writeDesc(d); err != nil {
			return nil, err
		}
	}
	if tw.err != nil {
		return nil, tw.err
	}
	return tw, nil
}

// Format returns the writer's format.
func (w *Writer) Format() Format { return w.format }

func (w *Writer) write(b []byte) {
	if w.err == nil {
		_, w.err = w.bw.Write(b)
	}
}

// writeAttrs writes one attribute packet (ASCII: a /* */ block). The run
// index's keys are dropped: the index describes the stream it ends only.
func (w *Writer) writeAttrs(attrs []Attr) error {
	if kept := withoutRunIndex(attrs); len(kept) < len(attrs) {
		if len(kept) == 0 {
			return w.err
		}
		attrs = kept
	}
	if len(attrs) > MaxAttrs {
		return fmt.Errorf("trace: more than %d attributes", MaxAttrs)
	}
	for _, a := range attrs {
		if len(a.Key) > MaxString || len(a.Value) > MaxString {
			return fmt.Errorf("trace: attribute %.40q longer than %d bytes", a.Key, MaxString)
		}
	}
	b := w.scratch[:0]
	if w.format == ASCII {
		b = append(b, "/*\n"...)
		for _, a := range attrs {
			b = append(b, " * "...)
			b = appendQuoted(b, a.Key)
			b = append(b, ' ')
			b = appendQuoted(b, a.Value)
			b = append(b, '\n')
		}
		b = append(b, " */ ;;\n"...)
	} else {
		le := binary.LittleEndian
		b = le.AppendUint32(b, 0)
		b = le.AppendUint32(b, PacketAttributes)
		b = le.AppendUint32(b, uint32(len(attrs)))
		for _, a := range attrs {
			b = appendBinString(b, a.Key)
			b = appendBinString(b, a.Value)
		}
		if len(b)-4 > MaxPacket {
			return fmt.Errorf("trace: attribute packet larger than %d bytes", MaxPacket)
		}
		le.PutUint32(b, uint32(len(b)-4))
		w.trackOther(len(b))
	}
	w.scratch = b
	w.write(b)
	return w.err
}

// withoutRunIndex is attrs without the run index's keys (a copy when it
// drops one).
func withoutRunIndex(attrs []Attr) []Attr {
	for i, a := range attrs {
		if a.Key == RunsKey || a.Key == RunsAtKey {
			kept := append([]Attr{}, attrs[:i]...)
			for _, a := range attrs[i+1:] {
				if a.Key != RunsKey && a.Key != RunsAtKey {
					kept = append(kept, a)
				}
			}
			return kept
		}
	}
	return attrs
}

// trackOther and trackData keep the run index of a binary stream up to
// date with a packet about to be written; an index grown too large is
// dropped.
func (w *Writer) trackOther(n int) {
	if w.runs != nil && w.err == nil {
		w.runs.Other(int64(n))
	}
}

func (w *Writer) trackData(p []byte) {
	if w.runs != nil && w.err == nil && (!w.runs.dataPackets(p) || len(w.runs.Runs) > maxRuns) {
		w.runs = nil
	}
}

func appendBinString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// checkDesc reports what is wrong with d for writing, or nil.
func checkDesc(d *Descriptor) error {
	if d == nil {
		return errors.New("trace: nil descriptor")
	}
	if len(d.Name) > MaxString || len(d.Event) > MaxString {
		return fmt.Errorf("trace: descriptor #%d: name or event longer than %d bytes", d.Tag, MaxString)
	}
	if len(d.Fields) > MaxFields {
		return fmt.Errorf("trace: descriptor #%d %q: more than %d fields", d.Tag, d.Name, MaxFields)
	}
	for _, f := range d.Fields {
		if f.Type < Char || f.Type > Double {
			return fmt.Errorf("trace: descriptor #%d %q field %q: bad type %d", d.Tag, d.Name, f.Name, f.Type)
		}
		if f.Dims < 0 || f.Dims > MaxDims {
			return fmt.Errorf("trace: descriptor #%d %q field %q: %d dimensions", d.Tag, d.Name, f.Name, f.Dims)
		}
		if len(f.Name) > MaxString {
			return fmt.Errorf("trace: descriptor #%d %q: field name longer than %d bytes", d.Tag, d.Name, MaxString)
		}
	}
	return nil
}

// sameDesc reports whether a and b describe the same record.
func sameDesc(a, b *Descriptor) bool {
	if a == b {
		return true
	}
	if a.Tag != b.Tag || a.Name != b.Name || a.Event != b.Event || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i] != b.Fields[i] {
			return false
		}
	}
	return true
}

// WriteDescriptor writes the descriptor d unless an identical one was written
// already. A different descriptor with the same tag or name is an error.
// WriteRecord calls it for a record whose descriptor is new.
func (w *Writer) WriteDescriptor(d *Descriptor) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bw == nil {
		return errClosed
	}
	return w.writeDesc(d)
}

func (w *Writer) writeDesc(d *Descriptor) error {
	if err := checkDesc(d); err != nil {
		return err
	}
	if old := w.descs[d.Tag]; old != nil {
		if sameDesc(old.d, d) {
			return nil
		}
		return fmt.Errorf("trace: descriptor #%d %q conflicts with #%d %q written before", d.Tag, d.Name, old.d.Tag, old.d.Name)
	}
	if old := w.names[d.Name]; old != nil {
		return fmt.Errorf("trace: descriptor #%d %q conflicts with #%d %q written before", d.Tag, d.Name, old.d.Tag, old.d.Name)
	}
	b := w.scratch[:0]
	if w.format == ASCII {
		b = appendDescASCII(b, d)
	} else {
		b = appendDescBinary(b, d)
		if len(b)-4 > MaxPacket {
			return fmt.Errorf("trace: descriptor #%d %q: packet larger than %d bytes", d.Tag, d.Name, MaxPacket)
		}
		if w.runs != nil && w.err == nil {
			w.runs.Descriptor(uint32(d.Tag), nodeOffsetOf(d), int64(len(b)))
		}
	}
	w.scratch = b
	wd := &wdesc{d: d, qname: append(appendQuoted(nil, d.Name), " { "...)}
	w.descs[d.Tag] = wd
	w.names[d.Name] = wd
	w.write(b)
	return w.err
}

// appendDescASCII appends the ASCII form of d, in the style of seed 002:
//
//	#1301:
//	// "event" "start a trace region"
//	"trace-region-start" {
//		int	"node id";
//		...
//	};;
func appendDescASCII(b []byte, d *Descriptor) []byte {
	b = append(b, '#')
	b = strconv.AppendInt(b, int64(d.Tag), 10)
	b = append(b, ":\n"...)
	if d.Event != "" {
		b = append(b, "// \"event\" "...)
		b = appendQuoted(b, d.Event)
		b = append(b, '\n')
	}
	b = appendQuoted(b, d.Name)
	b = append(b, " {\n"...)
	for _, f := range d.Fields {
		b = append(b, '\t')
		b = append(b, f.Type.String()...)
		b = append(b, '\t')
		b = appendQuoted(b, f.Name)
		for k := 0; k < f.Dims; k++ {
			b = append(b, "[]"...)
		}
		b = append(b, ";\n"...)
	}
	return append(b, "};;\n"...)
}

// appendDescBinary appends the binary descriptor packet of d (see doc.go).
func appendDescBinary(b []byte, d *Descriptor) []byte {
	le := binary.LittleEndian
	start := len(b)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, PacketDescriptor)
	b = le.AppendUint32(b, uint32(d.Tag))
	b = appendBinString(b, d.Name)
	if d.Event != "" {
		b = le.AppendUint32(b, 1)
		b = appendBinString(b, "event")
		b = appendBinString(b, d.Event)
	} else {
		b = le.AppendUint32(b, 0)
	}
	b = le.AppendUint32(b, uint32(len(d.Fields)))
	for _, f := range d.Fields {
		b = le.AppendUint32(b, uint32(f.Type))
		b = le.AppendUint32(b, uint32(f.Dims))
		b = appendBinString(b, f.Name)
	}
	le.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

// WriteBuf writes every data packet of b (b is not modified; the caller
// resets it). The records are checked against
// the descriptors written so far (by tag); if one is malformed nothing of b is
// written and the error names it. b must not hold an open record (Begin
// without End).
func (w *Writer) WriteBuf(b *Buf) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bw == nil {
		return errClosed
	}
	if w.err != nil {
		return w.err
	}
	if w.format == Binary {
		if err := w.walkBuf(b.B, nil); err != nil {
			return err
		}
		w.trackData(b.B)
		w.write(b.B)
		return w.err
	}
	txt := w.scratch[:0]
	if err := w.walkBuf(b.B, &txt); err != nil {
		w.scratch = txt[:0]
		return err
	}
	w.scratch = txt
	w.write(txt)
	return w.err
}

// WriteTrusted writes the data packets in p, which a Buf built (whole
// records, Begin to End, in the field order of descriptors written by
// NewWriter), so that they need no checking: a binary stream copies the
// bytes as they are. An ASCII stream decodes them to print them and so still
// checks them, as WriteBuf does. It is the runtime's path for its own
// buffers; a malformed packet in p makes a binary stream unreadable from
// there on, so anything else goes through WriteBuf.
func (w *Writer) WriteTrusted(p []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bw == nil {
		return errClosed
	}
	if w.err != nil {
		return w.err
	}
	if w.format == Binary {
		w.trackData(p)
		w.write(p)
		return w.err
	}
	txt := w.scratch[:0]
	if err := w.walkBuf(p, &txt); err != nil {
		w.scratch = txt[:0]
		return err
	}
	w.scratch = txt
	w.write(txt)
	return w.err
}

// walkBuf checks the data packets of p and, if txt is non-nil, appends their
// ASCII form to it.
func (w *Writer) walkBuf(p []byte, txt *[]byte) error {
	le := binary.LittleEndian
	for off, k := 0, 1; off < len(p); k++ {
		if len(p)-off < 12 {
			return fmt.Errorf("trace: WriteBuf: buffer offset %d (record #%d): %d bytes left, a data packet needs at least 12", off, k, len(p)-off)
		}
		n := int(le.Uint32(p[off:]))
		if n < 8 || n > len(p)-off-4 {
			return fmt.Errorf("trace: WriteBuf: buffer offset %d (record #%d): bad packet length %d (open record?)", off, k, n)
		}
		if kind := le.Uint32(p[off+4:]); kind != PacketData {
			return fmt.Errorf("trace: WriteBuf: buffer offset %d (record #%d): packet kind %d, want %d (data)", off, k, kind, PacketData)
		}
		tag := Tag(le.Uint32(p[off+8:]))
		wd := w.descs[tag]
		if wd == nil {
			return fmt.Errorf("trace: WriteBuf: buffer offset %d (record #%d): no descriptor for tag %d", off, k, tag)
		}
		if txt != nil {
			*txt = append(*txt, wd.qname...)
		}
		if e := decodeData(wd.d, p[off+12:off+4+n], nil, txt, nil); e != nil {
			return fmt.Errorf("trace: WriteBuf: buffer offset %d (record %q #%d): %s", off+12+e.off, wd.d.Name, k, e.msg)
		}
		if txt != nil {
			*txt = append(*txt, " };;\n"...)
		}
		off += 4 + n
	}
	return nil
}

// WriteRecord writes one record, first writing its descriptor if this is the
// first record of a descriptor not written yet.
func (w *Writer) WriteRecord(r *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bw == nil {
		return errClosed
	}
	if w.err != nil {
		return w.err
	}
	if r == nil || r.Desc == nil {
		return errors.New("trace: WriteRecord: record without descriptor")
	}
	if wd := w.descs[r.Desc.Tag]; wd == nil || !sameDesc(wd.d, r.Desc) {
		if err := w.writeDesc(r.Desc); err != nil {
			return err
		}
	}
	b, err := appendRecord(w.scratch[:0], r)
	if err != nil {
		return err
	}
	if w.format == ASCII {
		wd := w.descs[r.Desc.Tag]
		n := len(b)
		b = append(b, wd.qname...)
		txt := b
		if e := decodeData(wd.d, b[12:n], nil, &txt, nil); e != nil {
			return fmt.Errorf("trace: WriteRecord %q: %s", r.Desc.Name, e.msg) // cannot happen: appendRecord checked it
		}
		b = append(txt, " };;\n"...)
		w.write(b[n:])
	} else {
		w.trackData(b)
		w.write(b)
	}
	w.scratch = b[:0]
	return w.err
}

// Flush writes buffered data to the underlying writer.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bw == nil {
		return errClosed
	}
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	return w.err
}

// Close ends a binary stream with its run index (runs.go) and flushes the
// stream. It does not close the underlying writer. Later writes fail.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bw == nil {
		return errClosed
	}
	if w.runs != nil && w.err == nil {
		w.write(appendRunIndex(nil, w.runs.Runs, w.runs.End()))
	}
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	w.bw = nil
	return w.err
}
