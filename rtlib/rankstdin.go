package rtlib

import (
	"encoding/binary"
	"io"
	"os"
	"sync"
	"time"
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

// stdinChunk is how much rank 0 reads and sends at a time, and
// stdinAhead how far it reads ahead of its own program: every rank's
// program reads the same bytes at about the same point of the same code,
// so rank 0's backlog bounds the others' (a program that never reads an
// endless input, yes | svmc run --mpi, holds 4 MB, not all of it).
const (
	stdinChunk = 64 << 10
	stdinAhead = 4 << 20
)

// stdinFeed writes what arrives into the pipe the program reads as
// os.Stdin, from a goroutine of its own: the transport's goroutine must
// not wait for the program to read.
type stdinFeed struct {
	mu     sync.Mutex
	chunks [][]byte
	queued int // bytes in chunks
	eof    bool
	more   chan struct{} // a chunk or the end arrived
	taken  chan struct{} // a chunk went into the pipe
	w      *os.File
	// real is the process's standard input, read on rank 0 only, kept
	// referenced on every rank: the collector closes an unreferenced
	// os.File's descriptor, and descriptor 0 would go to the next file
	// opened (and to the programs it starts, as their input).
	real *os.File
	// Rank 0's sending, ended by stdinEnd: after it nothing more is
	// posted, and the end of input has been.
	sendMu           sync.Mutex
	stopped, eofSent bool
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
	f := &stdinFeed{more: make(chan struct{}, 1), taken: make(chan struct{}, 1), w: pw, real: real}
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
		for r.stdin.backlog() > stdinAhead {
			<-r.stdin.taken
		}
		buf := make([]byte, stdinChunk)
		n, err := io.ReadAtLeast(in, buf, 1)
		f := r.stdin
		f.sendMu.Lock()
		if f.stopped {
			f.sendMu.Unlock()
			return
		}
		if n > 0 {
			for k := 1; k < r.ranks.Size(); k++ {
				r.stdinPost(k, buf[:n], false)
			}
			f.put(buf[:n], false)
		}
		if err != nil {
			r.stdinEOF()
			f.sendMu.Unlock()
			f.put(nil, true)
			return
		}
		f.sendMu.Unlock()
	}
}

// stdinEOF sends the end of input to the other ranks, once (under sendMu).
func (r *run) stdinEOF() {
	if !r.stdin.eofSent {
		for k := 1; k < r.ranks.Size(); k++ {
			r.stdinPost(k, nil, true)
		}
		r.stdin.eofSent = true
	}
}

// stdinEnd ends the forwarding at the run's normal end, before the ranks
// close: rank 0 posts nothing more and sends the end of input, and every
// other rank takes what was posted to it up to that end — the transport's
// close waits for every send it posted, and a chunk nobody receives would
// hold it for ever (yes | svmc run --mpi hung so).
func (r *run) stdinEnd() {
	f := r.stdin
	if f == nil {
		return
	}
	if r.rank == 0 {
		f.sendMu.Lock()
		f.stopped = true
		r.stdinEOF()
		f.sendMu.Unlock()
		return
	}
	for deadline := time.Now().Add(10 * time.Second); !f.ended() && time.Now().Before(deadline) && !r.hurried(); {
		if !r.ranks.Progress() {
			time.Sleep(20 * time.Microsecond)
		}
	}
}

func (f *stdinFeed) ended() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.eof
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

func (f *stdinFeed) backlog() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queued
}

func (f *stdinFeed) put(b []byte, eof bool) {
	f.mu.Lock()
	if len(b) > 0 {
		f.chunks = append(f.chunks, b)
		f.queued += len(b)
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
				f.queued -= len(b)
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
			select {
			case f.taken <- struct{}{}:
			default:
			}
		}
	}
}
