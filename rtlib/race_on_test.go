//go:build race

package rtlib

// raceOn: the tests run under the race detector, whose instrumentation
// slows every goroutine several times over.
const raceOn = true
