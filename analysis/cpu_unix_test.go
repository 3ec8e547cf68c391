//go:build unix

package analysis

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user and system), for
// a benchmark's CPU per record: on a shared machine it varies less than
// the elapsed time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
