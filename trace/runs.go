package trace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Run index. A reader that reads each processor's records apart (svmc
// report, view) first needs to know which bytes of a binary stream hold
// whose records: the runtime writes each processor's buffer as one run of
// data packets, so a file is a sequence of runs. Finding them costs a scan
// of every packet's framing (about 11 ms a million records, serial, before
// any decoding can start). Writer knows them as it writes, so it ends a
// binary stream with them:
//
//	attributes { "svmc.runs": "19 -1;4096 0;1048576 1;…" }
//	attributes { "svmc.runs-at": "00000000000041943040" }
//
// The first packet lists the runs in file order as "length node" pairs
// (node -1: descriptors and attribute packets, which belong to every
// processor's stream); the runs tile the stream from its first byte up to
// that packet. The second, of fixed size, ends the stream and gives that
// packet's offset in 20 digits, so a reader finds the index by reading the
// stream's last 52 bytes. Any SDDF reader takes both for attribute packets;
// Reader hides them, and Writer drops the keys from attributes it is given,
// so a converted stream never carries an index of another file. A stream
// with no index (an ASCII stream, a run killed before it closed its trace,
// a merge that interleaves processors record by record) is scanned as
// before.

// Keys of the run index's attribute packets.
const (
	RunsKey   = "svmc.runs"
	RunsAtKey = "svmc.runs-at"
)

// trailerSize is the size of the fixed attribute packet that ends an
// indexed stream: length, kind, count, key, 20-digit value.
const trailerSize = 4 + 4 + 4 + 4 + 12 + 4 + 20 // 12: len(RunsAtKey)

// maxRuns bounds the index a Writer keeps: a stream of more runs (records
// of processors interleaved one by one) gets none and is scanned. Its text
// is then at most about 6 MB; a reader takes none longer than
// maxIndexBytes.
const (
	maxRuns       = 1 << 18
	maxIndexBytes = 32 << 20
)

// A Run is a byte range of a binary stream: consecutive data packets of one
// processor (Node ≥ 0), or descriptor and attribute packets (Node -1).
type Run struct {
	Off, N int64
	Node   int32
}

// RunTracker assigns the packets of a binary stream, in order, to runs.
// A data packet belongs to the processor its "node id" field names; a
// record with no such field, or a template-dist record (the leader writes
// it for each processor in its own buffer), belongs to the writer of the
// record before it. Writer and the readers' scan (replay) use one tracker
// so that an index written and an index scanned agree byte for byte.
type RunTracker struct {
	nodeOff []int32          // by tag: byte offset of "node id" in the record's fields, -1 none, unknownTag
	more    map[uint32]int32 // tags beyond nodeOff
	writer  int32
	maxNode int32
	off     int64
	Runs    []Run
}

const unknownTag = -2

// NewRunTracker starts a tracker at stream offset off (the header's size).
func NewRunTracker(off int64) *RunTracker {
	t := &RunTracker{nodeOff: make([]int32, 4096), writer: -1, maxNode: -1}
	for i := range t.nodeOff {
		t.nodeOff[i] = unknownTag
	}
	t.add(0, off, -1)
	t.off = off
	return t
}

// Nodes is one more than the largest processor a run belongs to.
func (t *RunTracker) Nodes() int { return int(t.maxNode) + 1 }

// End is the stream offset after the packets tracked.
func (t *RunTracker) End() int64 { return t.off }

func (t *RunTracker) add(off, n int64, node int32) {
	if k := len(t.Runs) - 1; k >= 0 && t.Runs[k].Node == node && t.Runs[k].Off+t.Runs[k].N == off {
		t.Runs[k].N += n
		return
	}
	t.Runs = append(t.Runs, Run{off, n, node})
}

// Descriptor records a descriptor packet of n bytes (length field
// included) for tag, whose records hold "node id" at byte offset nodeOff
// of their fields (-1: not at a fixed offset).
func (t *RunTracker) Descriptor(tag uint32, nodeOff int, n int64) {
	if tag < uint32(len(t.nodeOff)) {
		t.nodeOff[tag] = int32(nodeOff)
	} else {
		if t.more == nil {
			t.more = map[uint32]int32{}
		}
		t.more[tag] = int32(nodeOff)
	}
	t.Other(n)
}

// Other records a non-data packet of n bytes.
func (t *RunTracker) Other(n int64) {
	t.add(t.off, n, -1)
	t.off += n
}

// NodeOffset is where tag's records hold their node id (-1: nowhere);
// ok is false for a tag with no descriptor yet.
func (t *RunTracker) NodeOffset(tag uint32) (int32, bool) {
	no := int32(unknownTag)
	if tag < uint32(len(t.nodeOff)) {
		no = t.nodeOff[tag]
	} else if v, ok := t.more[tag]; ok {
		no = v
	}
	return no, no != unknownTag
}

// Data records a data packet of n bytes with tag whose node id field holds
// node (-1 when it has none). It returns false for a stream no index can
// describe (a processor number beyond 65536).
func (t *RunTracker) Data(tag uint32, node int32, n int64) bool {
	w := node
	if w < 0 || Tag(tag) == TagTemplateDist && t.writer >= 0 {
		w = t.writer
	}
	if w < 0 {
		w = 0
	}
	if w > 1<<16 {
		return false
	}
	t.writer = w
	t.maxNode = max(t.maxNode, w)
	t.add(t.off, n, w)
	t.off += n
	return true
}

// dataPackets records the data packets in p (whole packets, as a Buf
// holds them). It returns false if one cannot be placed.
func (t *RunTracker) dataPackets(p []byte) bool {
	le := binary.LittleEndian
	for off := 0; off+12 <= len(p); {
		n := int(le.Uint32(p[off:]))
		tag := le.Uint32(p[off+8:])
		no, ok := t.NodeOffset(tag)
		if !ok || n < 8 || off+4+n > len(p) {
			return false
		}
		node := int32(-1)
		if q := off + 12 + int(no); no >= 0 && q+4 <= off+4+n {
			node = int32(le.Uint32(p[q:]))
		}
		// The common case, a record of the run's own processor, extends
		// the run in place (Data decides the rest): the runtime's writer
		// goroutine does this for every record it writes.
		if k := len(t.Runs) - 1; node >= 0 && node == t.writer && Tag(tag) != TagTemplateDist && t.Runs[k].Node == node && t.Runs[k].Off+t.Runs[k].N == t.off {
			t.Runs[k].N += int64(4 + n)
			t.off += int64(4 + n)
		} else if !t.Data(tag, node, int64(4+n)) {
			return false
		}
		off += 4 + n
	}
	return true
}

// nodeOffsetOf is where d's records hold "node id": the byte offset within
// their fields when only scalars precede it, else -1.
func nodeOffsetOf(d *Descriptor) int {
	off := 0
	for _, f := range d.Fields {
		if f.Name == "node id" && f.Dims == 0 && f.Type == Int {
			return off
		}
		if f.Dims != 0 {
			return -1
		}
		switch f.Type {
		case Char:
			off++
		case Int, Float:
			off += 4
		case Double:
			off += 8
		default:
			return -1
		}
	}
	return -1
}

// appendRunIndex appends the two attribute packets of the index of runs,
// the first to be written at offset at.
func appendRunIndex(b []byte, runs []Run, at int64) []byte {
	var list []byte
	for i, r := range runs {
		if i > 0 {
			list = append(list, ';')
		}
		list = strconv.AppendInt(list, r.N, 10)
		list = append(list, ' ')
		list = strconv.AppendInt(list, int64(r.Node), 10)
	}
	le := binary.LittleEndian
	start := len(b)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, PacketAttributes)
	b = le.AppendUint32(b, 1)
	b = appendBinString(b, RunsKey)
	b = le.AppendUint32(b, uint32(len(list)))
	b = append(b, list...)
	le.PutUint32(b[start:], uint32(len(b)-start-4))
	return appendTrailer(b, at)
}

func appendTrailer(b []byte, at int64) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, trailerSize-4)
	b = le.AppendUint32(b, PacketAttributes)
	b = le.AppendUint32(b, 1)
	b = appendBinString(b, RunsAtKey)
	return appendBinString(b, fmt.Sprintf("%020d", at))
}

// ReadRunIndex returns the runs a Writer listed at the end of a binary
// stream of size bytes, and one more than the largest processor they name;
// nil when the stream has no index or its index does not describe it (the
// caller then scans the stream). The runs tile the stream from offset 0 up
// to the index; each is checked to begin with a packet of its kind.
func ReadRunIndex(ra io.ReaderAt, size int64) ([]Run, int) {
	if size < binHeaderSize+trailerSize {
		return nil, 0
	}
	tr := make([]byte, trailerSize)
	if _, err := ra.ReadAt(tr, size-trailerSize); err != nil {
		return nil, 0
	}
	want := appendTrailer(nil, 0)
	if string(tr[:trailerSize-20]) != string(want[:trailerSize-20]) {
		return nil, 0
	}
	at, err := strconv.ParseInt(string(tr[trailerSize-20:]), 10, 64)
	head := 16 + len(RunsKey) // length, kind, count, key; then the value's length
	if err != nil || at < binHeaderSize || at > size-trailerSize-int64(head+4) {
		return nil, 0
	}
	// The packet's head first: a damaged or hostile trailer must not make
	// the reader allocate what it claims.
	n := size - trailerSize - at
	hb := make([]byte, head+4)
	if _, err := ra.ReadAt(hb, at); err != nil {
		return nil, 0
	}
	le := binary.LittleEndian
	if int64(le.Uint32(hb)) != n-4 || le.Uint32(hb[4:]) != PacketAttributes || le.Uint32(hb[8:]) != 1 ||
		int(le.Uint32(hb[12:])) != len(RunsKey) || string(hb[16:head]) != RunsKey ||
		int64(le.Uint32(hb[head:])) != n-int64(head)-4 || n > maxIndexBytes {
		return nil, 0
	}
	body := make([]byte, n-int64(head)-4)
	if _, err := ra.ReadAt(body, at+int64(head)+4); err != nil {
		return nil, 0
	}
	list := string(body)
	runs := make([]Run, 0, strings.Count(list, ";")+1)
	var off int64
	maxNode := int32(-1)
	for item := range strings.SplitSeq(list, ";") {
		ns, nodes, ok := strings.Cut(item, " ")
		n, err1 := strconv.ParseInt(ns, 10, 64)
		node, err2 := strconv.ParseInt(nodes, 10, 32)
		if !ok || err1 != nil || err2 != nil || n <= 0 || n > at-off || node < -1 || node > 1<<16 {
			return nil, 0
		}
		if !runStarts(ra, off, int32(node)) {
			return nil, 0
		}
		runs = append(runs, Run{off, n, int32(node)})
		off += n
		maxNode = max(maxNode, int32(node))
	}
	if off != at || len(runs) == 0 || runs[0].Node != -1 || runs[0].N < binHeaderSize {
		return nil, 0
	}
	return runs, int(maxNode) + 1
}

// runStarts reports whether a run of node may begin at off: a data packet
// for a processor, a header, descriptor or attribute packet for node -1.
func runStarts(ra io.ReaderAt, off int64, node int32) bool {
	if off == 0 {
		return node == -1
	}
	var h [8]byte
	if _, err := ra.ReadAt(h[:], off); err != nil {
		return false
	}
	kind := binary.LittleEndian.Uint32(h[4:])
	if node >= 0 {
		return kind == PacketData
	}
	return kind == PacketDescriptor || kind == PacketAttributes
}

// VerifyRunIndex checks the run index of the binary stream data against
// its records: each processor's run is decoded (with the descriptors
// before it) and must hold that processor's records only, template-dist
// records aside. It returns the records per processor, or what is wrong.
func VerifyRunIndex(data []byte) (map[int32]int, error) {
	runs, _ := ReadRunIndex(bytes.NewReader(data), int64(len(data)))
	if runs == nil {
		return nil, fmt.Errorf("the stream has no valid run index")
	}
	var shared [][]byte // the header, descriptors and attributes so far
	perNode := map[int32]int{}
	for _, r := range runs {
		part := data[r.Off : r.Off+r.N]
		if r.Node < 0 {
			shared = append(shared, part)
			continue
		}
		rd, err := NewBytesReader("run", append(append([][]byte{}, shared...), part)...)
		if err != nil {
			return nil, err
		}
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("run at %d of processor %d: %v", r.Off, r.Node, err)
			}
			if rec.Desc.Tag != TagTemplateDist && rec.Node() >= 0 && int32(rec.Node()) != r.Node {
				return nil, fmt.Errorf("run at %d of processor %d holds a record %q of processor %d", r.Off, r.Node, rec.Desc.Name, rec.Node())
			}
			perNode[r.Node]++
		}
	}
	return perNode, nil
}
