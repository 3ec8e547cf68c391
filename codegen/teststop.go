package codegen

// testStopFuncs are the methods of testing's T, B and F that end a test,
// with the runtime's stand-ins for them (rtlib/teststop.go), which exits
// (exit.go) puts in their place everywhere in the file: called in a pdo's
// body on another processor's goroutine, or on the test's in the middle of
// the pdo, the methods would end that goroutine; a helper the body calls
// (check(t, xs[i])) stops the test as the body does, and the runtime tells
// a body's call, whose share it ends, from one outside any body, which
// stops the test at once as the method does.
var testStopFuncs = map[string]string{
	"Fatal": "TestFatal", "Fatalf": "TestFatalf", "FailNow": "TestFailNow",
	"Skip": "TestSkip", "Skipf": "TestSkipf", "SkipNow": "TestSkipNow",
}
