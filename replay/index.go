package replay

import (
	"encoding/binary"
	"io"

	"github.com/svmc/svmc/trace"
)

// A binary trace is a header, then packets (trace/doc.go). The runtime
// writes each processor's buffer as one run of data packets, so a file is a
// sequence of runs of one processor each. The index lists the runs; the
// stream of processor q is then read as the virtual file "header + every
// non-data packet + q's runs, in file order", which is a valid SDDF stream
// of q's records alone. Reading the processors' streams side by side needs
// memory for one record per processor, whatever the order of the runs.

const binHeaderSize = 19

// segment is a byte range of the file: non-data packets (node -1, shared by
// every processor's stream) or a run of one processor's data packets.
type segment struct {
	off, n int64
	node   int32
}

// indexBinary scans the packet framing of a binary trace. It returns nil
// (and no error) when the file is not one it can index; the caller then
// reads it as one stream, and the reader reports any damage. It reads the
// file in large blocks and looks each data packet's node id up by tag in a
// table: about 9 ns a packet (BenchmarkDecode/index).
func indexBinary(ra io.ReaderAt, size int64, data []byte) ([]segment, int, error) {
	const block = 1 << 20
	if data != nil {
		// Read from memory, still a block at a time: scanning the blocks
		// copied is faster than scanning the file where it lies (the
		// copy streams it in; the scan's loads would wait on each line,
		// each packet's length saying where the next begins: tried again
		// in stop 31, 23 ms against 9 ms for a million packets).
		ra = Bytes(data)
	}
	buf := make([]byte, min(block, max(size, binHeaderSize)))
	hdr := buf[:binHeaderSize]
	if n, _ := ra.ReadAt(hdr, 0); n < binHeaderSize || string(hdr[:5]) != "SDDFB" || hdr[5] != binHeaderSize || hdr[6] != 1 {
		return nil, 0, nil
	}
	le := binary.LittleEndian
	tr := trace.NewRunTracker(binHeaderSize)
	off := int64(binHeaderSize)
	scratch := make([]byte, 4)
	var b []byte     // buf[:filled]: the file from bufOff on
	var bufOff int64 // file offset of b[0]
	for off < size {
		// Make the packet's first 16 bytes available (or what is left).
		need := min(16, size-off)
		if off+need > bufOff+int64(len(b)) {
			n, err := ra.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
			if n < int(need) || err != nil && err != io.EOF && n < int(need) {
				return nil, 0, nil
			}
			b, bufOff = buf[:n], off
		}
		p := b[off-bufOff:]
		if len(p) < 8 {
			return nil, 0, nil
		}
		n := int64(le.Uint32(p))
		kind := le.Uint32(p[4:])
		if n < 4 || n > trace.MaxPacket || off+4+n > size {
			return nil, 0, nil
		}
		total := 4 + n
		switch kind {
		case trace.PacketData:
			if n < 8 || len(p) < 12 {
				return nil, 0, nil
			}
			tag := le.Uint32(p[8:])
			no, ok := tr.NodeOffset(tag)
			if !ok {
				return nil, 0, nil // a data record before its descriptor
			}
			node := int32(-1)
			if no >= 0 && int64(12+no+4) <= total {
				if q := off - bufOff + 12 + int64(no); q+4 <= int64(len(b)) {
					node = int32(le.Uint32(b[q:]))
				} else if _, err := ra.ReadAt(scratch, off+12+int64(no)); err == nil {
					node = int32(le.Uint32(scratch))
				} else {
					return nil, 0, nil
				}
			}
			if !tr.Data(tag, node, total) {
				return nil, 0, nil
			}
		case trace.PacketDescriptor:
			body := make([]byte, n-4)
			if _, err := io.ReadFull(io.NewSectionReader(ra, off+8, n-4), body); err != nil {
				return nil, 0, nil
			}
			tag, no, ok := descNodeOffset(body)
			if !ok {
				return nil, 0, nil
			}
			tr.Descriptor(tag, no, total)
		case trace.PacketAttributes:
			tr.Other(total)
		default:
			return nil, 0, nil
		}
		off += total
	}
	segs := make([]segment, len(tr.Runs))
	for i, r := range tr.Runs {
		segs[i] = segment{r.Off, r.N, r.Node}
	}
	return segs, tr.Nodes(), nil
}

// descNodeOffset reads a descriptor packet's contents: its tag and the byte
// offset of the "node id" field within a data record's fields, or -1 when
// the record has none at a fixed offset.
func descNodeOffset(p []byte) (uint32, int, bool) {
	le := binary.LittleEndian
	pos := 0
	u32 := func() (uint32, bool) {
		if len(p)-pos < 4 {
			return 0, false
		}
		v := le.Uint32(p[pos:])
		pos += 4
		return v, true
	}
	str := func() (string, bool) {
		n, ok := u32()
		if !ok || int64(n) > int64(len(p)-pos) {
			return "", false
		}
		s := string(p[pos : pos+int(n)])
		pos += int(n)
		return s, true
	}
	tag, ok := u32()
	if !ok {
		return 0, 0, false
	}
	if _, ok := str(); !ok {
		return 0, 0, false
	}
	na, ok := u32()
	if !ok || na > trace.MaxAttrs {
		return 0, 0, false
	}
	for i := uint32(0); i < na; i++ {
		if _, ok := str(); !ok {
			return 0, 0, false
		}
		if _, ok := str(); !ok {
			return 0, 0, false
		}
	}
	nf, ok := u32()
	if !ok || nf > trace.MaxFields {
		return 0, 0, false
	}
	off := 0
	for i := uint32(0); i < nf; i++ {
		typ, ok1 := u32()
		dims, ok2 := u32()
		name, ok3 := str()
		if !ok1 || !ok2 || !ok3 {
			return 0, 0, false
		}
		if name == "node id" && dims == 0 && trace.FieldType(typ) == trace.Int {
			return tag, off, true
		}
		if dims != 0 || off < 0 {
			off = -1
			continue
		}
		switch trace.FieldType(typ) {
		case trace.Char:
			off++
		case trace.Int, trace.Float:
			off += 4
		case trace.Double:
			off += 8
		default:
			return 0, 0, false
		}
	}
	return tag, -1, true
}

// segReader reads a list of byte ranges of ra as one stream.
type segReader struct {
	ra   io.ReaderAt
	segs []segment
	i    int
	pos  int64 // offset within segs[i]
}

func (s *segReader) Read(p []byte) (int, error) {
	for s.i < len(s.segs) && s.pos == s.segs[s.i].n {
		s.i++
		s.pos = 0
	}
	if s.i == len(s.segs) {
		return 0, io.EOF
	}
	sg := s.segs[s.i]
	if rest := sg.n - s.pos; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := s.ra.ReadAt(p, sg.off+s.pos)
	s.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// fileOffset maps an offset of the virtual stream back to the file.
func fileOffset(segs []segment, v int64) int64 {
	for _, sg := range segs {
		if v < sg.n {
			return sg.off + v
		}
		v -= sg.n
	}
	if len(segs) > 0 {
		last := segs[len(segs)-1]
		return last.off + last.n + v
	}
	return v
}

// nodeInput reads each processor's stream with a reader of its own. The
// streams of the run's processors are decoded in parallel, each by a
// goroutine of its own a few batches ahead of the merge (parallel.go);
// those of goroutine lanes, which may be many, in the merge's goroutine.
type nodeInput struct {
	name    string
	readers []*trace.Reader
	decs    []*decoder
	segs    [][]segment
	par     *parallel // nil: every stream in the merge's goroutine
}

func (ni *nodeInput) perNode() bool { return true }

func (ni *nodeInput) read(o *orderer, q int) error {
	if q >= len(ni.readers) {
		return io.EOF
	}
	var err error
	if ni.par != nil && q < len(ni.par.feeds) {
		err = ni.par.read(o, q)
	} else {
		err = o.readRaw(ni.readers[q], q, ni.decs[q])
	}
	if err != nil {
		if err == io.EOF {
			return err
		}
		return ni.mapErr(q, err)
	}
	return nil
}

// segmentReader reads the stream that is the segments segs of a file:
// where they lie when data holds the file's bytes, else through ReadAt.
func segmentReader(ra io.ReaderAt, data []byte, segs []segment, name string) (*trace.Reader, error) {
	if data == nil {
		return trace.NewNamedReader(&segReader{ra: ra, segs: segs}, name)
	}
	parts := make([][]byte, len(segs))
	for i, sg := range segs {
		parts[i] = data[sg.off : sg.off+sg.n : sg.off+sg.n]
	}
	return trace.NewBytesReader(name, parts...)
}

// newNodeInput indexes a binary trace; nil if it cannot. data, when not
// nil, is the trace's bytes: the readers read them where they lie.
func newNodeInput(ra io.ReaderAt, size int64, name string, data []byte) (*nodeInput, error) {
	segs, n, err := indexOf(ra, size, data)
	if err != nil || segs == nil {
		return nil, err
	}
	return nodeInputOf(ra, data, segs, n, name)
}

// indexOf is the index of a binary trace: the runs its writer listed at
// its end (trace.ReadRunIndex), else a scan of its packets.
func indexOf(ra io.ReaderAt, size int64, data []byte) ([]segment, int, error) {
	if data != nil {
		ra = Bytes(data)
	}
	if runs, n := trace.ReadRunIndex(ra, size); runs != nil {
		segs := make([]segment, len(runs))
		for i, r := range runs {
			segs[i] = segment{r.Off, r.N, r.Node}
		}
		return segs, n, nil
	}
	return indexBinary(ra, size, data)
}

// nodeInputOf makes the readers of the n streams of an index.
func nodeInputOf(ra io.ReaderAt, data []byte, segs []segment, n int, name string) (*nodeInput, error) {
	ni := &nodeInput{name: name, readers: make([]*trace.Reader, n), decs: make([]*decoder, n), segs: make([][]segment, n)}
	for q := 0; q < n; q++ {
		var mine []segment
		for _, sg := range segs {
			if sg.node < 0 || sg.node == int32(q) {
				mine = append(mine, sg)
			}
		}
		ni.segs[q] = mine
		rd, err := segmentReader(ra, data, mine, name)
		if err != nil {
			return nil, err
		}
		ni.readers[q] = rd
		ni.decs[q] = newDecoder()
	}
	return ni, nil
}

// OrderFile is Order for a trace file (any random-access input of the given
// size; name is used in error messages). A binary trace is indexed first
// (one scan of the packet framing, no decoding) and each processor's
// stream is then read by a reader of its own, so the merge holds one
// record per processor plus those blocked on a synchronisation partner,
// whatever the order of the buffer runs in the file. Other inputs are read
// as one stream by Order.
func OrderFile(ra io.ReaderAt, size int64, name string, opt OrderOptions, fn func(*Event) error) (OrderStats, error) {
	rd, err := trace.NewNamedReader(io.NewSectionReader(ra, 0, size), name)
	if err != nil {
		return OrderStats{}, err
	}
	if rd.Format() != trace.Binary {
		return Order(rd, opt, fn)
	}
	data, release := mapped(ra, size)
	defer release()
	ni, err := newNodeInput(ra, size, name, data)
	if err != nil || ni == nil {
		return Order(rd, opt, fn)
	}
	fillOptions(&opt, rd.Attrs())
	o := newOrderer(opt)
	o.grow(len(ni.readers))
	o.in = ni
	o.emit = fn
	if !o.customMsg {
		procs := len(ni.readers)
		if opt.Procs > 0 {
			procs = min(procs, opt.Procs)
		}
		ni.par = startParallel(ni, procs, opt.Records)
		defer ni.par.stop()
	}
	err = o.run()
	return o.stats, err
}
