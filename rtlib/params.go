package rtlib

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/svmc/svmc/trace"
)

// ParamsFromEnv reads the run parameters from the environment:
//
//	SVMC_NPROCS   processors (default 1)
//	SVMC_TRACE    trace file to write (empty: no trace)
//	SVMC_FORMAT   ascii or binary (default binary)
//	SVMC_REQUEST  trace request file (CONFIG entries only, see ReadRequest)
//	SVMC_STAGE    tracing stage 0..6; overrides the request file's
//	              SVM_TraceStage; default 3 when a trace is written
//
// It creates the trace file; closeTrace flushes and closes it.
func ParamsFromEnv() (par Params, closeTrace func() error, err error) {
	closeTrace = func() error { return nil }
	par.NProcs = 1
	if s, ok := os.LookupEnv("SVMC_NPROCS"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return par, closeTrace, fmt.Errorf("SVMC_NPROCS=%s: want a positive integer", s)
		}
		par.NProcs = n
	}
	format := trace.Binary
	if s := os.Getenv("SVMC_FORMAT"); s != "" {
		f, err := trace.ParseFormat(s)
		if err != nil {
			return par, closeTrace, fmt.Errorf("SVMC_FORMAT=%s: want ascii or binary", s)
		}
		format = f
	}
	par.Format = format
	par.Stage = 3
	if name := os.Getenv("SVMC_REQUEST"); name != "" {
		src, err := os.ReadFile(name)
		if err != nil {
			return par, closeTrace, fmt.Errorf("SVMC_REQUEST: %v", err)
		}
		req, err := ReadRequest(name, src)
		if err != nil {
			return par, closeTrace, err
		}
		if req.Stage >= 0 {
			par.Stage = req.Stage
		}
		par.BufSize = req.BufSize
		par.KernelBufSize = req.KernelBufSize
	}
	if s, ok := os.LookupEnv("SVMC_STAGE"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 || n > MaxStage {
			return par, closeTrace, fmt.Errorf("SVMC_STAGE=%s: want a stage 0..%d", s, MaxStage)
		}
		par.Stage = n
	}
	if path := os.Getenv("SVMC_TRACE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return par, closeTrace, fmt.Errorf("SVMC_TRACE=%s: %v", path, err)
		}
		bw := bufio.NewWriterSize(f, 256<<10)
		par.Trace = bw
		closeTrace = func() error {
			err := bw.Flush()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("SVMC_TRACE=%s: %v", path, err)
			}
			return nil
		}
	}
	return par, closeTrace, nil
}

// Request is what the runtime takes from a trace request file.
type Request struct {
	Stage         int // SVM_TraceStage, -1 if absent
	BufSize       int // SVM_TraceBuf_Size in bytes, 0 if absent
	KernelBufSize int // SVM_Kernel_TraceBuf_Size in bytes, 0 if absent
}

// ReadRequest parses a trace request file (seed 002, section 5). Only
// CONFIG entries are supported yet:
//
//	CONFIG SVM_TraceStage: 0..6
//	CONFIG SVM_TraceBuf_Size: BYTES
//	CONFIG SVM_Kernel_TraceBuf_Size: BYTES
//
// BYTES is a positive integer, optionally followed by K or M (KiB, MiB).
// Keywords are case-insensitive, '#' starts a comment to the end of the
// line, entries are separated by white space (line breaks included).
// Errors read "name:line:col: message".
func ReadRequest(name string, src []byte) (*Request, error) {
	req := &Request{Stage: -1}
	toks := lexRequest(src)
	errAt := func(t reqToken, format string, args ...any) error {
		return fmt.Errorf("%s:%d:%d: %s", name, t.line, t.col, fmt.Sprintf(format, args...))
	}
	for i := 0; i < len(toks); {
		t := toks[i]
		switch strings.ToUpper(t.text) {
		case "CONFIG":
		case "INCLUDE", "REQUEST":
			return nil, errAt(t, "%s entries are not supported yet, only CONFIG", strings.ToUpper(t.text))
		default:
			return nil, errAt(t, "unexpected %q: want CONFIG, INCLUDE or REQUEST", t.text)
		}
		i++
		if i >= len(toks) {
			return nil, errAt(t, "CONFIG without a parameter")
		}
		key := toks[i]
		k := strings.TrimSuffix(key.text, ":")
		hasColon := k != key.text
		i++
		if !hasColon {
			if i < len(toks) && toks[i].text == ":" {
				i++
			} else {
				return nil, errAt(key, "want ':' after %s", k)
			}
		}
		if i >= len(toks) {
			return nil, errAt(key, "%s without a value", k)
		}
		val := toks[i]
		i++
		switch strings.ToLower(k) {
		case "svm_tracestage":
			n, err := strconv.Atoi(val.text)
			if err != nil || n < 0 || n > MaxStage {
				return nil, errAt(val, "SVM_TraceStage %q: want a stage 0..%d", val.text, MaxStage)
			}
			req.Stage = n
		case "svm_tracebuf_size", "svm_kernel_tracebuf_size":
			n, ok := parseSize(val.text)
			if !ok {
				return nil, errAt(val, "%s %q: want a positive size in bytes (suffix K or M allowed)", k, val.text)
			}
			if strings.EqualFold(k, "svm_tracebuf_size") {
				req.BufSize = n
			} else {
				req.KernelBufSize = n
			}
		default:
			return nil, errAt(key, "unknown CONFIG parameter %q: want SVM_TraceStage, SVM_TraceBuf_Size or SVM_Kernel_TraceBuf_Size", k)
		}
	}
	return req, nil
}

func parseSize(s string) (int, bool) {
	mul := 1
	switch {
	case strings.HasSuffix(s, "K"), strings.HasSuffix(s, "k"):
		mul, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"), strings.HasSuffix(s, "m"):
		mul, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > (1<<40)/mul {
		return 0, false
	}
	return n * mul, true
}

type reqToken struct {
	text      string
	line, col int
}

// lexRequest splits src into white-space separated words, a ':' standing
// alone or ending a word, and drops '#' comments.
func lexRequest(src []byte) []reqToken {
	var toks []reqToken
	line, col := 1, 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line, col = line+1, 1
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i, col = i+1, col+1
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		}
		j := i
		for j < len(src) && !strings.ContainsRune(" \t\r\n#", rune(src[j])) {
			j++
			if src[j-1] == ':' {
				break
			}
		}
		toks = append(toks, reqToken{string(src[i:j]), line, col})
		col += j - i
		i = j
	}
	return toks
}
