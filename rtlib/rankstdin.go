package rtlib

import (
	"encoding/binary"
	"io"
	"os"
	"sync"
)

// Standard input between ranks. mpirun gives the job's standard input to
// rank 0 only (OpenMPI 4.1's --stdin all hangs), while every rank runs
// processor 0's exclusive code, which reads it: a word count read its
// words on rank 0 and nothing on the others, and went on with other
// inputs there. Rank 0 therefore reads the real standard input itself and
// sends every chunk to the other ranks (rankStdin messages, EOF last),
// and each rank's program reads os.Stdin from a pipe the runtime feeds, so
// every rank reads the same bytes in the same order. Rank 0 reads ahead of
// the program (the input is held in memory until it is read).
const rankStdin = 11

// stdinChunk is how much rank 0 reads and sends at a time.
const stdinChunk = 64 << 10

// stdinFeed writes what arrives into the pipe the program reads as
// os.Stdin, from a goroutine of its own: the transport's goroutine must
// not wait for the program to read.
type stdinFeed struct {
	mu     sync.Mutex
	chunks [][]byte
	eof    bool
	more   chan struct{} // a chunk or the end arrived
	w      *os.File
}

// stdinStart replaces os.Stdin with a pipe the runtime feeds (before the
// ranks listen: a chunk may come at once).
func (r *run) stdinStart() error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	real := os.Stdin
	os.Stdin = pr
	f := &stdinFeed{more: make(chan struct{}, 1), w: pw}
	r.stdin = f
	go f.feed()
	if r.rank == 0 {
		go r.stdinRead(real)
	}
	return nil
}

// stdinRead is rank 0's reader of the real standard input.
func (r *run) stdinRead(in io.Reader) {
	for {
		buf := make([]byte, stdinChunk)
		n, err := io.ReadAtLeast(in, buf, 1)
		if n > 0 {
			for k := 1; k < r.ranks.Size(); k++ {
				r.stdinPost(k, buf[:n], false)
			}
			r.stdin.put(buf[:n], false)
		}
		if err != nil {
			for k := 1; k < r.ranks.Size(); k++ {
				r.stdinPost(k, nil, true)
			}
			r.stdin.put(nil, true)
			return
		}
	}
}

func (r *run) stdinPost(k int, data []byte, eof bool) {
	b := getBuf(8*rankHeader + len(data))
	clear(b[:8*rankHeader])
	binary.LittleEndian.PutUint64(b, rankStdin)
	if eof {
		binary.LittleEndian.PutUint64(b[8:], 1)
	}
	copy(b[8*rankHeader:], data)
	r.ranks.Post(k, b, nil, nil, nil)
}

// stdinArrive takes a chunk from rank 0 (on the transport's goroutine).
func (r *run) stdinArrive(h *[rankHeader]int64, data []byte) {
	if r.stdin != nil {
		r.stdin.put(append([]byte(nil), data...), h[1] != 0)
	}
}

func (f *stdinFeed) put(b []byte, eof bool) {
	f.mu.Lock()
	if len(b) > 0 {
		f.chunks = append(f.chunks, b)
	}
	f.eof = f.eof || eof
	f.mu.Unlock()
	select {
	case f.more <- struct{}{}:
	default:
	}
}

func (f *stdinFeed) feed() {
	for range f.more {
		for {
			f.mu.Lock()
			var b []byte
			if len(f.chunks) > 0 {
				b, f.chunks = f.chunks[0], f.chunks[1:]
			}
			eof := f.eof && len(f.chunks) == 0 && b == nil
			f.mu.Unlock()
			if eof {
				f.w.Close()
				return
			}
			if b == nil {
				break
			}
			if _, err := f.w.Write(b); err != nil {
				return // the program closed its end: the rest is not wanted
			}
		}
	}
}
