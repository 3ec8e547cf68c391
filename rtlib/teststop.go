package rtlib

// A test's t.Fatal in a pdo's iteration. In the plain program the loop runs
// on the test's goroutine, and t.Fatal ends the test there (FailNow:
// runtime.Goexit). Under svmc the iteration may run on another processor's
// goroutine, where Goexit would end that processor, and on the test's own
// goroutine it would leave the pdo with the others waiting at its barrier
// for ever (x220: a deadlock after 5 s). svmc compiles every call of
// t.Fatal, Fatalf, FailNow, Skip, Skipf and SkipNow into the functions
// below: they report as the method does (the line is the caller's:
// Helper); inside a construct's body, or a function it calls, they end the
// iteration's share as a panic does (bodypanic.go), and once the pdo has
// ended processor 0 — the test's goroutine under svmc test — stops the
// test with FailNow or SkipNow; anywhere else they stop the test at once.

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

// TestFatal is tb.Fatal(args...).
func TestFatal(tb TB, args ...any) {
	tb.Helper()
	tb.Error(args...)
	stopTest(tb, false)
}

// TestFatalf is tb.Fatalf(format, args...).
func TestFatalf(tb TB, format string, args ...any) {
	tb.Helper()
	tb.Errorf(format, args...)
	stopTest(tb, false)
}

// TestFailNow is tb.FailNow().
func TestFailNow(tb TB) {
	tb.Fail()
	stopTest(tb, false)
}

// TestSkip is tb.Skip(args...).
func TestSkip(tb TB, args ...any) {
	tb.Helper()
	tb.Log(args...)
	stopTest(tb, true)
}

// TestSkipf is tb.Skipf(format, args...).
func TestSkipf(tb TB, format string, args ...any) {
	tb.Helper()
	tb.Logf(format, args...)
	stopTest(tb, true)
}

// TestSkipNow is tb.SkipNow().
func TestSkipNow(tb TB) { stopTest(tb, true) }

// stopTest ends the calling iteration's share: a processor in a
// construct's body panics with testStop for the construct to take (catch);
// a goroutine that is no processor runs the loop serially, as the plain
// program, and stops the test at once, as does a processor outside any
// body.
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
