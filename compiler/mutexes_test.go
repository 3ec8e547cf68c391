package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMutexSites: the lock statements of the program's sync mutexes are
// numbered in source order, each with its method and whether its receiver
// is a pointer already; a lock through sync.Locker is one (the runtime
// looks at its value) and so is one of a mutex a call returns (its
// receiver is the runtime call's argument, evaluated once); a deferred one
// is not. The program information lists them.
func TestMutexSites(t *testing.T) {
	dir := t.TempDir()
	src := `package main

import "sync"

type box struct {
	sync.Mutex
	mu *sync.Mutex
	rw sync.RWMutex
}

func get(b *box) *sync.Mutex { return b.mu }

func main() {
	var mu sync.Mutex
	b := &box{mu: &sync.Mutex{}}
	var stripes [2]sync.Mutex
	var l sync.Locker = &mu
	mu.Lock()
	mu.Unlock()
	b.Lock()
	b.Unlock()
	b.mu.Lock()
	b.mu.Unlock()
	b.rw.RLock()
	b.rw.RUnlock()
	stripes[1].Lock()
	stripes[1].Unlock()
	l.Lock()
	l.Unlock()
	get(b).Lock()
	get(b).Unlock()
	func() {
		defer mu.Unlock()
		mu.Lock()
	}()
	defer b.rw.Lock()
}
`
	for name, text := range map[string]string{"go.mod": "module example.com/m\n\ngo 1.24\n", "main.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Compile(Config{Dir: dir, Pattern: "."})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range mutexesOf(p) {
		got = append(got, fmt.Sprintf("%d %s %s %v", m.Num, p.Text(m.Recv), m.Func, m.Ptr))
	}
	want := "1 mu Mutex.Lock false, 2 b Mutex.Lock true, 3 b.mu Mutex.Lock true, 4 b.rw RWMutex.RLock false, 5 stripes[1] Mutex.Lock false, 6 l Locker.Lock true, 7 get(b) Mutex.Lock true, 8 mu Mutex.Lock false"
	if strings.Join(got, ", ") != want {
		t.Errorf("sites %q\nwant %q", strings.Join(got, ", "), want)
	}
	var lines []string
	for _, c := range p.Prog.MutexSites {
		lines = append(lines, fmt.Sprintf("%d:%d %s", c.Num, c.Pos.Line, c.Func))
	}
	if want := "1:18 Mutex.Lock, 2:20 Mutex.Lock, 3:22 Mutex.Lock, 4:24 RWMutex.RLock, 5:26 Mutex.Lock, 6:28 Locker.Lock, 7:30 Mutex.Lock, 8:34 Mutex.Lock"; strings.Join(lines, ", ") != want {
		t.Errorf("program information %q, want %q", strings.Join(lines, ", "), want)
	}
}
