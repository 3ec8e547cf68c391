package rtlib

// A test's t.Fatal in a pdo's iteration. In the plain program the loop runs
// on the test's goroutine, and t.Fatal ends the test there (FailNow:
// runtime.Goexit). Under svmc the iteration may run on another processor's
// goroutine, where Goexit would end that processor, and on the test's own
// goroutine it would leave the pdo with the others waiting at its barrier
// for ever (x220: a deadlock after 5 s). svmc compiles t.Fatal, Fatalf,
// FailNow, Skip, Skipf and SkipNow called in a pdo's body into the
// functions below: they report as the method does (the line is the
// caller's: Helper) and end the iteration's share as a panic does
// (bodypanic.go), and once the pdo has ended, processor 0 — the test's
// goroutine under svmc test — stops the test with FailNow or SkipNow.

// TB is what the stand-ins need of a *testing.T, *testing.B or *testing.F
// (rtlib does not import testing).
type TB interface {
	Helper()
	Error(args ...any)
	Errorf(format string, args ...any)
	Log(args ...any)
	Logf(format string, args ...any)
	Fail()
	FailNow()
	SkipNow()
}

// testStop is the panic value that carries a stopped test out of a
// construct's body to the code around it.
type testStop struct {
	tb   TB
	skip bool
}

// TestFatal is tb.Fatal(args...) in a pdo's body.
func TestFatal(tb TB, args ...any) {
	tb.Helper()
	tb.Error(args...)
	stopTest(tb, false)
}

// TestFatalf is tb.Fatalf(format, args...) in a pdo's body.
func TestFatalf(tb TB, format string, args ...any) {
	tb.Helper()
	tb.Errorf(format, args...)
	stopTest(tb, false)
}

// TestFailNow is tb.FailNow() in a pdo's body.
func TestFailNow(tb TB) {
	tb.Fail()
	stopTest(tb, false)
}

// TestSkip is tb.Skip(args...) in a pdo's body.
func TestSkip(tb TB, args ...any) {
	tb.Helper()
	tb.Log(args...)
	stopTest(tb, true)
}

// TestSkipf is tb.Skipf(format, args...) in a pdo's body.
func TestSkipf(tb TB, format string, args ...any) {
	tb.Helper()
	tb.Logf(format, args...)
	stopTest(tb, true)
}

// TestSkipNow is tb.SkipNow() in a pdo's body.
func TestSkipNow(tb TB) { stopTest(tb, true) }

// stopTest ends the calling iteration's share: a processor of a team
// panics with testStop for the construct to take (catch); a goroutine that
// is none runs the loop serially, as the plain program, and stops the
// test at once, as does a processor outside any construct's body (svmc
// compiles every t.Fatal of the program into these: one in a helper that
// a body calls ended the whole run).
func stopTest(tb TB, skip bool) {
	if p := gProcs.load(getg()); p == nil || p.detached || p.inBody == 0 {
		testStop{tb, skip}.stop()
		return
	}
	panic(testStop{tb, skip})
}

// stop ends the test on the calling goroutine.
func (s testStop) stop() {
	if s.skip {
		s.tb.SkipNow()
	}
	s.tb.FailNow()
}
