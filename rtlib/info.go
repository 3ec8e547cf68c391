package rtlib

import (
	"fmt"
	"os"
)

// Informational messages of the program (Lib-DVM §8.1: rtl_printf,
// rtl_mprintf, rtl_iprintf). They go to the run's stream of informational
// messages, which the info parameter directs (stderr, stdout, off, or
// file:PATH; seed 000 §8.2), apart from the program's own output that
// --stdout and --stderr route. Outside a run they go to standard error.

// RtlPrintf is rtl_printf: the message is printed once, by processor 0
// (the central processor); on the others it prints nothing.
func RtlPrintf(format string, args ...any) {
	if ProcessorID() == 0 {
		infoPrint(fmt.Sprintf(format, args...))
	}
}

// RtlMPrintf is rtl_mprintf: every processor that calls it prints the
// message.
func RtlMPrintf(format string, args ...any) {
	infoPrint(fmt.Sprintf(format, args...))
}

// RtlIPrintf is rtl_iprintf: rtl_printf that returns the number of bytes
// printed (0 on the processors that print nothing, and when the stream is
// off).
func RtlIPrintf(format string, args ...any) int {
	if ProcessorID() != 0 {
		return 0
	}
	return infoPrint(fmt.Sprintf(format, args...))
}

// infoPrint writes msg to the informational stream in one write (so that
// messages of different processors do not interleave) and returns the
// bytes written.
func infoPrint(msg string) int {
	if r := activeRun.Load(); r != nil && !r.standalone {
		if !r.infoOn("user") {
			return 0
		}
		n, _ := r.stderr.Write([]byte(msg))
		return n
	}
	n, _ := os.Stderr.WriteString(msg)
	return n
}
