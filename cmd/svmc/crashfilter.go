package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// crashFilter passes what the program writes to descriptor 2 through
// (the Go runtime's own output, and that of code holding os.Stderr from
// before svmc's runtime was initialised: crashPipe), except the Go
// runtime's report of a crash that the runtime of svmc could not catch: a
// fatal error (concurrent map writes in a pdo body, a stack overflow, out
// of memory) or a panic while the packages svmc did not compile were
// initialised. That report is a Go stack with the runtime's internals
// (x535: 25 lines for a map written by two processors); svmc run says
// instead what failed, on which processor, at which line of the user's
// code, as the runtime does for a panic it catches:
//
//	svmc: processor 1 crashed: fatal error: concurrent map writes
//		at main.go:13
//
// With GOTRACEBACK set in the environment the report passes unchanged
// (the user asked for Go's own), and text that only looks like a report
// (no goroutine's stack follows) is passed on as it was.
type crashFilter struct {
	out     io.Writer
	mu      sync.Mutex
	midLine bool   // the last byte passed on was not a newline
	pending []byte // the start of a line that may begin a report
	passing []byte // what a Write passes on
	held    bool   // a report may have begun: what follows is kept in report
	sure    bool   // it is one: a goroutine's stack or a fatal error followed
	lines   int    // lines held
	// line: the start of the held line a Write left unfinished. The
	// runtime prints a line in pieces ("fatal error: ", the message,
	// "\n", each its own write), and a reader that keeps up reads them
	// apart (ci of stop 59: a stack overflow's report passed on whole,
	// its "fatal error" line never seen as one).
	line   []byte
	since  time.Time
	timer  *time.Timer
	report bytes.Buffer
	// quit: the Go runtime began its dump of every goroutine on SIGQUIT
	// (Ctrl-\), which passes on as it is: the user asked for it.
	quit bool
}

// quitHead begins the Go runtime's goroutine dump on SIGQUIT.
var quitHead = []byte("SIGQUIT: quit")

// reportMax bounds what a crash report keeps: the crashing goroutine
// comes first, and every goroutine after it is of no use here.
const reportMax = 1 << 20

// lineMax bounds the held line kept for its first words.
const lineMax = 4 << 10

// A line that begins as a report does is held until the program ends,
// and passed on as it was when no goroutine's stack or fatal error
// follows within heldLines lines, or the program then writes nothing for
// heldFor and goes on running, or still writes after heldMost (a
// println("panic: ...") of its own: the program's os.Stderr is not this
// pipe, svmc run hands it the real one), and at the end when the program
// did not crash (exit status 2). Once a goroutine's stack or a fatal
// error followed, the runtime is crashing, and the report is held until
// the end however long its traceback takes.
const (
	heldLines = 64
	heldFor   = time.Second
)

// heldMost: a program still writing that long after a report began is
// alive (a variable for the tests).
var heldMost = 5 * time.Second

var crashHeads = []string{"panic: ", "fatal error: ", "runtime: "}

func newCrashFilter(out io.Writer) *crashFilter { return &crashFilter{out: out} }

func (c *crashFilter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	// What passes on is written once a Write: a program that logs a
	// line at a time must not cost a system call a line.
	out := c.passing[:0]
	defer func() { c.passing = out[:0] }()
	for len(p) > 0 {
		seg := p
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			seg = p[:i+1]
		}
		p = p[len(seg):]
		if c.held {
			c.hold(seg)
			continue
		}
		line := seg
		if !c.midLine { // a line begins here (pending holds its first bytes)
			if len(c.pending) > 0 {
				line = append(c.pending, seg...)
			}
			if bytes.HasPrefix(line, quitHead) {
				c.quit = true
			}
			if crashHead(line) {
				if len(out) > 0 {
					if _, err := c.out.Write(out); err != nil {
						return n - len(p), err
					}
					out = out[:0]
				}
				c.held, c.lines, c.pending, c.since, c.line = true, 0, nil, time.Now(), c.line[:0]
				c.timer = time.AfterFunc(heldFor, c.release)
				c.hold(line)
				continue
			}
			if line[len(line)-1] != '\n' && maybeHead(line) {
				c.pending = append(c.pending[:0], line...)
				continue
			}
			c.pending = c.pending[:0]
		}
		out = append(out, line...)
		c.midLine = line[len(line)-1] != '\n'
	}
	if len(out) > 0 {
		if _, err := c.out.Write(out); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// hold keeps seg of a report, and passes what is held on if, many lines
// on, it is still no report.
func (c *crashFilter) hold(seg []byte) {
	if room := reportMax - c.report.Len(); room > 0 {
		c.report.Write(seg[:min(len(seg), room)])
	}
	if c.sure {
		// The runtime is crashing: its traceback of a deep recursion
		// takes seconds (x537's stack of a gigabyte) before it exits.
		return
	}
	c.timer.Reset(heldFor)
	if time.Since(c.since) > heldMost {
		c.passHeld()
		return
	}
	if seg[len(seg)-1] != '\n' {
		if len(c.line) < lineMax {
			c.line = append(c.line, seg...)
		}
		return
	}
	c.lines++
	line := string(append(c.line, seg[:len(seg)-1]...))
	c.line = c.line[:0]
	if goroutineHead.MatchString(line) || strings.HasPrefix(line, "fatal error: ") {
		c.sure = true
		c.timer.Stop()
	} else if c.lines >= heldLines {
		c.passHeld()
	}
}

// release passes on what is held when the program wrote nothing for
// heldFor and did not end: it did not crash.
func (c *crashFilter) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held && !c.sure {
		c.passHeld()
	}
}

func (c *crashFilter) passHeld() {
	b := c.report.Bytes()
	c.out.Write(b)
	c.midLine = len(b) > 0 && b[len(b)-1] != '\n'
	c.report.Reset()
	c.line = c.line[:0]
	c.held, c.sure = false, false
	c.timer.Stop()
}

// crashHead reports whether line begins a report of the Go runtime.
func crashHead(line []byte) bool {
	for _, h := range crashHeads {
		if bytes.HasPrefix(line, []byte(h)) {
			return true
		}
	}
	return false
}

// maybeHead reports whether line may still become a report's first line
// (the runtime writes "panic: " and the value in separate writes).
func maybeHead(line []byte) bool {
	for _, h := range crashHeads {
		if len(line) < len(h) && strings.HasPrefix(h, string(line)) {
			return true
		}
	}
	return false
}

var (
	// "goroutine 26 [running]:", after a fatal error "goroutine 26
	// gp=0x... m=6 mp=0x... [running]:"
	goroutineHead = regexp.MustCompile(`^goroutine \d+ (?:[^\[]* )?\[[^\]]*\]:$`)
	// "\tmain.go:13 +0xcb", after a fatal error with " fp=... sp=... pc=..."
	frameFile = regexp.MustCompile(`^\t(.+\.go):(\d+)(?: .*)?$`)
	procFunc  = regexp.MustCompile(`rtlib\.svmcProcessor(\d+|Many)\(`)
)

// finish writes what the filter holds back once the program has ended,
// the crash said in svmc's terms where it is one (crashed: the program
// ended with the status of a Go crash), and returns that description
// ("" if none), or says that the program quit on SIGQUIT.
func (c *crashFilter) finish(crashed bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.out.Write(c.pending)
	c.pending = nil
	if !c.held {
		if c.quit && crashed {
			return "it quit on SIGQUIT, after Go printed every goroutine's stack above"
		}
		return ""
	}
	c.held = false
	msg, at, who, ok := parseCrash(c.report.String())
	if !ok || !crashed {
		c.out.Write(c.report.Bytes())
		return ""
	}
	fmt.Fprintf(c.out, "svmc: %s: %s\n", who, msg)
	if at != "" {
		fmt.Fprintf(c.out, "\tat %s\n", at)
	}
	fmt.Fprintln(c.out, "svmc: the Go runtime's report of it is left out; GOTRACEBACK=single in the environment shows it")
	return who
}

// parseCrash reads a report of the Go runtime: its message (the first
// line that says what failed, without "runtime: " lines before it), the
// first frame of the crashing goroutine in the user's code, and whose
// goroutine it was.
func parseCrash(rep string) (msg, at, who string, ok bool) {
	lines := strings.Split(rep, "\n")
	for _, l := range lines {
		if m, found := strings.CutPrefix(l, "fatal error: "); found {
			msg = "fatal error: " + m
			break
		}
		if m, found := strings.CutPrefix(l, "panic: "); found && msg == "" {
			msg = m
		}
	}
	g := -1
	for i, l := range lines {
		if goroutineHead.MatchString(l) {
			g = i
			break
		}
	}
	if g < 0 || msg == "" {
		return "", "", "", false
	}
	var stack []string
	for _, l := range lines[g+1:] {
		if l == "" {
			break
		}
		stack = append(stack, l)
	}
	for i := 0; i+1 < len(stack); i++ { // a function's line, then its file's
		if m := frameFile.FindStringSubmatch(stack[i+1]); m != nil && !strings.HasPrefix(stack[i], "\t") && userFile(m[1]) {
			at = shownPath(m[1]) + ":" + m[2]
			break
		}
	}
	all := strings.Join(stack, "\n")
	switch m := procFunc.FindStringSubmatch(all); {
	case m != nil && m[1] == "Many":
		who = "a processor numbered above 15 crashed"
	case m != nil:
		who = "processor " + m[1] + " crashed"
	case strings.Contains(all, ".init"):
		who = "the program panicked while its packages were initialised, before main"
		if !strings.HasPrefix(msg, "fatal error: ") {
			return msg, at, who, true
		}
		who = "the program crashed while its packages were initialised, before main"
	case strings.Contains(all, "\ncreated by "):
		who = "a goroutine the program started crashed"
	default:
		who = "the program crashed"
	}
	return msg, at, who, true
}

// shownPath is file relative to the current directory where it is inside
// it.
func shownPath(file string) string {
	if !filepath.IsAbs(file) {
		return file
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, file); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return file
}
