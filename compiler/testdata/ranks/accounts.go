package main

import (
	"bytes"
	"image"
	"image/color"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/svmc/svmc/rtlib"
)

// account's methods: deposit changes it, through add; balance reads.
type account struct {
	mu  sync.Mutex
	sum int
}

func (a *account) add(n int)     { a.sum += n }
func (a *account) deposit(n int) { a.add(n) }
func (a *account) balance() int  { return a.sum }

// bookkeeping calls methods on storage of every rank: those that change
// it are warned of, with the advice their kind needs.
func bookkeeping(accts []*account, n int) int {
	var hits atomic.Int64
	var mu sync.Mutex
	acct := &account{}
	seen := 0
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		accts[i%len(accts)].deposit(i) // want accts: method advice
		hits.Add(1)                    // want hits: atomic advice
		mu.Lock()                      // want mu: mutex advice
		seen += acct.balance()         // want seen: reduction advice
		mu.Unlock()
	}
	return int(hits.Load()) + seen
}

// viaValues calls the methods through method values: post changes ledger
// as ledger.deposit would; read only reads, and note is no method.
func viaValues(n int) int {
	ledger := &account{}
	post, read := ledger.deposit, ledger.balance
	note := func(int) {}
	total := 0
	//svm:pdo loops(i) reduction(+: total)
	for i := 0; i < n; i++ {
		post(i) // want ledger: method advice
		total += read()
		note(i)
	}
	return total
}

var word = regexp.MustCompile(`[a-z]+`)

var pool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// library calls methods of the standard library: a regexp's and a pool's
// change nothing another rank reads; an image's Set changes its pixels.
func library(texts []string, img *image.Gray) int {
	n := 0
	//svm:pdo loops(i) reduction(+: n)
	for i := range texts {
		buf := pool.Get().(*bytes.Buffer)
		n += len(word.FindString(texts[i])) + buf.Len()
		pool.Put(buf)
		img.SetGray(i, 0, color.Gray{Y: 1}) // want img: method advice
	}
	return n
}

// gather appends in a replicated region: the variable itself is replaced,
// so no //svm:shared is offered.
func gather() []int {
	var got []int
	//svm:replicated
	{
		got = append(got, rtlib.ProcessorID()) // want got: gather advice
	}
	return got
}

// label writes strings: shared or not, they cannot travel between ranks.
func label(n int) ([]string, []string) {
	shared := make([]string, n)
	//svm:shared shared
	plain := make([]string, n)
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		shared[i] = "s" // want shared: pointers advice
		plain[i] = "p"  // want plain: pointers advice
	}
	return shared, plain
}

// node's methods recurse: bump changes the tree only at its leaves, size
// reads it, and ping and pong call each other, pong writing. Asking
// whether a method changes its receiver follows each method once (the
// question recursed without end, and svmc build --mpi overflowed its
// stack).
type node struct {
	l, r *node
	n    int
}

func (t *node) bump() {
	if t.l == nil {
		t.n++
		return
	}
	t.l.bump()
	t.r.bump()
}

func (t *node) size() int {
	if t == nil {
		return 0
	}
	return 1 + t.l.size() + t.r.size()
}

func (t *node) ping(k int) {
	if k > 0 {
		t.pong(k - 1)
	}
}

func (t *node) pong(k int) {
	t.n += k
	t.ping(k)
}

func trees(n int) int {
	var a, b node
	var c node
	total := 0
	//svm:pdo loops(i) reduction(+: total)
	for i := 0; i < n; i++ {
		a.bump() // want a: method advice
		total += b.size()
		c.ping(i) // want c: method advice
	}
	return total
}

// tallies calls methods on elements: a count's change travels when the
// slice is shared, a named's holds a string, which nothing carries.
type count struct{ n int }

func (t *count) inc() { t.n++ }

type named struct {
	label string
	n     int
}

func (t *named) inc() { t.n++ }

func tallies(n int) (int, int) {
	plain := make([]count, 4)
	labelled := make([]named, 4)
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		plain[i%4].inc()    // want plain: element advice
		labelled[i%4].inc() // want labelled: pointerelem advice
	}
	return plain[0].n, labelled[0].n
}
