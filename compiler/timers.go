package compiler

import (
	"bytes"
	"os"
	"regexp"
	"strings"

	"golang.org/x/tools/go/packages"
)

// The runtime's watchdog tells a deadlock of the program's goroutines (Go's
// "all goroutines are asleep") from a wait for a timer only when it knows
// that no timer exists: a goroutine blocked receiving from a channel looks
// the same whether a time.After or another goroutine will send. noTimers
// answers it at compile time, conservatively.

// timerMakers are what Go code makes a timer (or a function the runtime
// calls later) with; "time.After" matches time.AfterFunc too, "Deadline"
// context.WithDeadline and the deadlines of files and connections.
var timerMakers = [][]byte{
	[]byte("time.After"), []byte("time.NewTimer"), []byte("time.NewTicker"), []byte("time.Tick"),
	[]byte("WithTimeout"), []byte("Deadline"), []byte("SetFinalizer"), []byte("AddCleanup"),
}

// namedImport finds an import with a name: the words above do not see time
// imported by another name (or a dot).
var namedImport = regexp.MustCompile(`(?m)^\s*(?:import\s+)?([\w.]+)\s+"time"`)

// otherNames reports whether a file imports time by another name, or cgo,
// whose C code may call into Go at any time.
func otherNames(data []byte) bool {
	for _, m := range namedImport.FindAllSubmatch(data, -1) {
		if string(m[1]) != "import" {
			return true
		}
	}
	return bytes.Contains(data, []byte(`import "C"`))
}

// stdTimers are standard packages that make timers or take signals inside
// (deadlines, idle connections, a command's context, a test's timeout).
var stdTimers = []string{"net", "os/exec", "os/signal", "database/sql", "crypto/tls", "log/syslog", "testing", "runtime/pprof", "runtime/trace"}

// noTimers reports whether no package of the program pkgs[0] makes a timer:
// the source of each non-standard package (but the runtime's) names none of
// timerMakers nor otherNames, and it imports none of stdTimers. A file that
// cannot be read counts as making one.
func noTimers(pkgs []*packages.Package) bool {
	if len(pkgs) != 1 {
		return false
	}
	ok := true
	packages.Visit(pkgs, func(p *packages.Package) bool {
		if !ok || p.PkgPath == RuntimePath || strings.HasPrefix(p.PkgPath, RuntimePath+"/") {
			return false // the runtime's own timers are its watchdog's
		}
		if std := p.Module == nil && !strings.Contains(strings.Split(p.PkgPath, "/")[0], "."); std {
			for _, s := range stdTimers {
				if p.PkgPath == s || strings.HasPrefix(p.PkgPath, s+"/") {
					ok = false
				}
			}
			return ok
		}
		for _, f := range p.GoFiles {
			data, err := os.ReadFile(f)
			if err != nil || containsAny(data, timerMakers) || otherNames(data) {
				ok = false
				break
			}
		}
		return ok
	}, nil)
	return ok
}

func containsAny(data []byte, words [][]byte) bool {
	for _, w := range words {
		if bytes.Contains(data, w) {
			return true
		}
	}
	return false
}
