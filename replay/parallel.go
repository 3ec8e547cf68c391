package replay

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/svmc/svmc/trace"
)

// Parallel decoding of the processors' streams of an indexed binary trace:
// each stream is read and decoded into Events by a goroutine of its own, in
// batches handed to the merge, which only queues and orders them. Reading
// and decoding is about a third of a report's work; on a machine of two
// cores the merge and the decoders then run side by side.

// batchItems is the size of a batch: large enough that handing it over
// costs little per record, small enough that a few per processor are a few
// hundred KB.
const batchItems = 2048

// batch is decoded records of one stream, then maybe the error that ended
// it (io.EOF at its end). pos holds each record's offset and number for an
// error the merge finds in it.
type batch struct {
	items []item
	pos   []recPos
	next  int
	err   error
	// The merge's: the batch's items still queued, whether it took them
	// all, and where the batch goes back to its decoder.
	live      int
	exhausted bool
	free      chan *batch
	// The clock order's check (fast.go): the barrier sites the stream
	// numbered and its barrier records, up to the batch's end.
	sites []clockSite
	bars  []barRec
}

// recycle hands the batch back to its decoder (or drops it when the
// decoder has enough).
func (b *batch) recycle() {
	select {
	case b.free <- b:
	default:
	}
}

// recPos is where a record lies, for an error that names it. It holds no
// pointer: the decoder keeps one per record, and with the descriptor's
// pointer that store (a write barrier's test) took 12% of decode-only's
// time.
type recPos struct {
	off int64
	num int
	tag trace.Tag
}

// descOf is the descriptor of tag that rd read last (a placeholder named
// after the tag if it knows none).
func descOf(rd *trace.Reader, tag trace.Tag) *trace.Descriptor {
	ds := rd.Descriptors()
	for i := len(ds) - 1; i >= 0; i-- {
		if ds[i].Tag == tag {
			return ds[i]
		}
	}
	return &trace.Descriptor{Tag: tag, Name: fmt.Sprintf("tag %d", tag)}
}

type parallel struct {
	ni    *nodeInput
	feeds []chan *batch // per stream, the decoded batches
	free  []chan *batch // per stream, batches the merge is done with
	cur   []*batch
	done  chan struct{}
	alive sync.WaitGroup // the decoders
	// running counts the decoders that have not returned (stop leaves
	// none).
	running atomic.Int32
	// checks, when set before run, are the streams' clock-order checks:
	// each decoder checks its records and hands the barrier records on.
	checks []*streamCheck
	keep   bool // every record keeps its trace.Record (OrderOptions.Records)
}

// startParallel starts a decoder per stream of the first procs.
func startParallel(ni *nodeInput, procs int, keep bool) *parallel {
	p := newParallel(ni, procs, keep)
	p.run()
	return p
}

// newParallel prepares decoders for the streams of the first procs; run
// starts them.
func newParallel(ni *nodeInput, procs int, keep bool) *parallel {
	p := &parallel{ni: ni, feeds: make([]chan *batch, procs), free: make([]chan *batch, procs),
		cur: make([]*batch, procs), done: make(chan struct{}), keep: keep}
	for q := range procs {
		p.feeds[q] = make(chan *batch, 2)
		p.free[q] = make(chan *batch, 4)
	}
	return p
}

func (p *parallel) run() {
	for q := range p.feeds {
		p.alive.Add(1)
		p.running.Add(1)
		go p.decode(q)
	}
}

// stop ends the decoders (the merge ended, maybe early) and waits until
// they have: they read the trace where it is mapped, and the caller unmaps
// it next (a merge that ended early left a decoder in the middle of a
// batch, which faulted on the unmapped file: x235's svmc view, once).
func (p *parallel) stop() {
	close(p.done)
	p.alive.Wait()
}

// decode reads stream q into batches until it ends or fails.
func (p *parallel) decode(q int) {
	defer p.alive.Done()
	defer p.running.Add(-1)
	rd, dec := p.ni.readers[q], p.ni.decs[q]
	var check *streamCheck
	if p.checks != nil {
		check = p.checks[q]
	}
	for {
		var b *batch
		select {
		case b = <-p.free[q]:
			b.items, b.pos, b.next, b.err, b.live, b.exhausted = b.items[:0], b.pos[:0], 0, nil, 0, false
		default:
			b = &batch{items: make([]item, 0, batchItems), pos: make([]recPos, 0, batchItems), free: p.free[q]}
		}
		for len(b.items) < batchItems {
			if len(b.items)%256 == 255 {
				select {
				case <-p.done: // the merge ended: stop waits for this decoder
					return
				default:
				}
			}
			b.items = b.items[:len(b.items)+1] // decode sets all of Event
			it := &b.items[len(b.items)-1]
			pos, err := dec.readEvent(rd, &it.e, p.keep)
			if err == nil && check != nil && !check.take(&it.e) {
				err = errUnordered
			}
			if err != nil {
				b.items = b.items[:len(b.items)-1]
				b.err = err
				break
			}
			if check == nil {
				// The clock order reads the Events alone and finds no
				// error in a record (its check is the decoder's).
				it.msg, it.kind, it.b = "", 0, nil
				b.pos = append(b.pos, pos)
			}
		}
		if check != nil {
			check.hand(b)
		}
		select {
		case p.feeds[q] <- b:
		case <-p.done:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// read queues the next record of stream q.
func (p *parallel) read(o *orderer, q int) error {
	b := p.cur[q]
	for b == nil || b.next == len(b.items) {
		if b != nil {
			if b.err != nil {
				return b.err
			}
			b.exhausted = true
			if b.live == 0 {
				b.recycle()
			}
		}
		b = <-p.feeds[q]
		p.cur[q] = b
	}
	k := b.next
	b.next++
	it := &b.items[k]
	it.b = b
	if msg := o.enqueue(it, nil, q); msg != "" {
		ps := b.pos[k]
		rd := p.ni.readers[q]
		return rd.BadRecordAt(descOf(rd, ps.tag), ps.off, ps.num, msg)
	}
	b.live++
	return nil
}
