package rtlib

import "time"

// Environment is Lib-DVM's system information (seed 000 §11.6) as the
// calling processor sees it.
type Environment struct {
	// MPSType is the message passing system: svmc's processors are
	// goroutines of one process ("goroutines").
	MPSType string
	// ProcCount is the processors of the run (ProcCount).
	ProcCount int
	// CurrEnvProcCount is the processors running the current branch of
	// the program: the active processor set of the caller (CurrEnvProcCount).
	CurrEnvProcCount int
	// VMSSize is the shape of the initial processor system (VMSRank is
	// its length): one dimension of ProcCount.
	VMSSize []int
	// CurrentProc is the caller's processor (MPS_CurrentProc), CentralProc
	// the leader of its active processor set (DVM_CentralProc), IOProc the
	// processor that does input and output (MPS_IOProc: processor 0).
	CurrentProc, CentralProc, IOProc int
	// Time is the run's clock in seconds since it started (dvm_time).
	Time float64
}

// SystemInfo returns the Environment of the calling processor; outside a
// run, that of a run of one processor.
func SystemInfo() Environment {
	e := Environment{MPSType: "goroutines", ProcCount: 1, CurrEnvProcCount: 1, VMSSize: []int{1}}
	r := activeRun.Load()
	if r == nil {
		return e
	}
	p := Current()
	e.ProcCount, e.VMSSize = r.n, []int{r.n}
	e.CurrentProc = p.id
	if a := p.aps; a != nil {
		e.CurrEnvProcCount, e.CentralProc = len(a.members), a.leaderID
	}
	e.Time = time.Since(r.start).Seconds()
	return e
}

// CurrEnvProcCount is SystemInfo().CurrEnvProcCount: how many processors
// run the current branch of the program (the caller's active processor set).
func CurrEnvProcCount() int { return SystemInfo().CurrEnvProcCount }

// DvmTime is Lib-DVM's dvm_time: the run's clock in seconds since it
// started.
func DvmTime() float64 { return SystemInfo().Time }
