package rtlib

import (
	"fmt"
	"strings"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/request"
)

// compileRequests checks par.Request against the program information file
// and compiles it, with par.Stage as its stage, into the table the
// processors consult. Without a request file the table holds the stage
// alone. Warnings (lenient mode) are informational messages.
func (r *run) compileRequests(par *Params) (*request.Table, error) {
	stage := &request.ConfigEntry{Key: request.ConfigTraceStage, Value: int64(par.Stage)}
	if par.Request == nil {
		return request.Compile(&request.File{Entries: []request.Entry{stage}}, nil, par.NProcs)
	}
	prog, perr := r.progInfo()
	warns, errs := request.Check(par.Request, prog, par.Lenient)
	if len(errs) > 0 {
		if perr != nil {
			return nil, fmt.Errorf("%v\n%v", perr, request.ErrorList(errs))
		}
		return nil, request.ErrorList(errs)
	}
	for _, w := range warns {
		if r.infoOn("requests") {
			fmt.Fprintf(r.stderr, "svmc: %s\n", w)
		}
	}
	// The stage given to the run replaces the file's SVM_TraceStage: it is
	// compiled as one more CONFIG entry after the file's.
	f := &request.File{Name: par.Request.Name, Entries: []request.Entry{
		&request.Include{File: par.Request}, stage}}
	tab, err := request.Compile(f, prog, par.NProcs)
	if err != nil {
		return nil, err
	}
	return tab, nil
}

// progInfo decodes the program information file the program carries. A
// program without one (hand-written tests) gets an empty program, with the
// decoding error to show if a request then names something.
func (r *run) progInfo() (*progdb.Program, error) { return progInfoOf(r.prog) }

// progInfoOf is progInfo of prog, for the run's start (Main) before its run
// exists.
func progInfoOf(prog *Program) (*progdb.Program, error) {
	if strings.TrimSpace(prog.Info) == "" {
		return &progdb.Program{}, fmt.Errorf("the program carries no program information file")
	}
	p, err := progdb.Unmarshal([]byte(prog.Info), "program information")
	if err != nil {
		return &progdb.Program{}, err
	}
	return p, nil
}
