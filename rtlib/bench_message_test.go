package rtlib

import (
	"fmt"
	"io"
	"testing"
)

// Ping-pong between two processors against the same exchange over Go
// channels, and a 1 MB message against copy: the message-passing goals
// (latency within 1.5× of a channel, 1 MB bandwidth at least 0.8× of
// copy) are read off these side by side. b.N round trips; SetBytes counts
// both directions.

// benchPingPong times b.N round trips of size-element messages between
// processors 0 and 1 (both in a replicated region; processor 0 times).
func benchPingPong(b *testing.B, size int, par Params) {
	par.NProcs, par.Stderr = 2, io.Discard
	b.SetBytes(int64(2 * 8 * size))
	err := Run(testProg(), par, func(p *Proc) {
		p.Replicated(1, 1, func(p *Proc) {
			buf := make([]float64, size)
			if ProcessorID() == 0 {
				Barrier()
				b.ResetTimer()
				for range b.N {
					Send(1, 0, buf)
					Recv(1, 0, buf)
				}
				b.StopTimer()
			} else {
				Barrier()
				for range b.N {
					Recv(0, 0, buf)
					Send(0, 0, buf)
				}
			}
		})
	})
	if err != nil {
		b.Fatal(err)
	}
}

// benchChanPingPong is the same exchange between two goroutines over two
// unbuffered channels of slices, copying into the receiver's buffer as a
// receive does.
func benchChanPingPong(b *testing.B, size int) {
	b.SetBytes(int64(2 * 8 * size))
	ping, pong := make(chan []float64), make(chan []float64)
	done := make(chan struct{})
	go func() {
		in := make([]float64, size)
		for range b.N {
			copy(in, <-ping)
			pong <- in
		}
		close(done)
	}()
	buf := make([]float64, size)
	b.ResetTimer()
	for range b.N {
		ping <- buf
		copy(buf, <-pong)
	}
	<-done
}

func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{1, 1 << 17} { // 8 bytes, 1 MiB
		name := fmt.Sprintf("%dB", 8*size)
		b.Run("svmc/"+name, func(b *testing.B) { benchPingPong(b, size, Params{}) })
		b.Run("svmc-sync/"+name, func(b *testing.B) { benchPingPong(b, size, Params{MsgBuffer: -1}) })
		b.Run("traced/"+name, func(b *testing.B) { benchPingPong(b, size, Params{Stage: 3, Trace: io.Discard}) })
		b.Run("chan/"+name, func(b *testing.B) { benchChanPingPong(b, size) })
	}
}

// BenchmarkCopy1MB is the bandwidth baseline: copy of 1 MiB, twice per op
// as a round trip moves it.
func BenchmarkCopy1MB(b *testing.B) {
	const size = 1 << 17
	src, dst := make([]float64, size), make([]float64, size)
	b.SetBytes(2 * 8 * size)
	for range b.N {
		copy(dst, src)
		copy(src, dst)
	}
}
