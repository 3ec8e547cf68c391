package analysis

import (
	"github.com/svmc/svmc/trace"
)

// scalar returns the int and float value of the scalar field called name,
// and whether the record has it.
func scalar(r *trace.Record, name string) (int, float64, bool) {
	i := r.Desc.Index(name)
	if i < 0 || i >= len(r.Values) || r.Desc.Fields[i].Dims != 0 {
		return 0, 0, false
	}
	v := &r.Values[i]
	switch r.Desc.Fields[i].Type {
	case trace.Double, trace.Float:
		return int(v.Double), v.Double, true
	}
	return v.Int, float64(v.Int), true
}

func intField(r *trace.Record, name string, def int) int {
	if n, _, ok := scalar(r, name); ok {
		return n
	}
	return def
}

func floatField(r *trace.Record, name string) float64 {
	_, f, _ := scalar(r, name)
	return f
}

func decodeStatInterval(r *trace.Record) *StatInterval {
	return &StatInterval{
		ID:               intField(r, "interval id", 0),
		Parent:           intField(r, "parent id", -1),
		Level:            intField(r, "level", 0),
		Name:             r.String("name"),
		Entries:          intField(r, "entries", 0),
		Dissync:          floatField(r, "dissynchronisation microseconds"),
		TimeVar:          floatField(r, "time variation microseconds"),
		PotSync:          floatField(r, "potential dissynchronisation microseconds"),
		Procs:            intField(r, "processors", 0),
		Exec:             floatField(r, "execution microseconds"),
		ProcTime:         floatField(r, "processor microseconds"),
		UserProductive:   floatField(r, "user productive microseconds"),
		UserLost:         floatField(r, "user lost microseconds"),
		SystemProductive: floatField(r, "system productive microseconds"),
		SystemLost:       floatField(r, "system lost microseconds"),
		Productive:       floatField(r, "productive microseconds"),
		Lost:             floatField(r, "lost microseconds"),
		Idle:             floatField(r, "idle microseconds"),
		SystemCalls:      floatField(r, "system calls"),
		Efficiency:       floatField(r, "efficiency"),
		Groups:           []StatGroup{},
	}
}

// statGroupRec is a stat-group record: one element of an interval matrix.
type statGroupRec struct {
	interval int
	g        StatGroup
}

func decodeStatGroup(r *trace.Record) *statGroupRec {
	return &statGroupRec{interval: intField(r, "interval id", 0), g: StatGroup{
		Caller:     intField(r, "caller group", 0),
		Group:      intField(r, "group", 0),
		Name:       r.String("group name"),
		Calls:      floatField(r, "calls"),
		Productive: floatField(r, "productive microseconds"),
		Lost:       floatField(r, "lost microseconds"),
	}}
}

// RunEndOf reads a trace-end record (for tools that read the records
// themselves, such as svmc view).
func RunEndOf(r *trace.Record) RunEnd { return *decodeEnd(r) }

func decodeEnd(r *trace.Record) *RunEnd {
	e := &RunEnd{Recorded: true, Status: intField(r, "status", 0), Message: r.String("message"),
		NotStopped: []int{}, LostRecords: intField(r, "lost records", 0)}
	if _, ps := r.IntArray("processors not stopped"); len(ps) > 0 {
		e.NotStopped = append(e.NotStopped, ps...)
	}
	e.StatusName = EndStatusName(e.Status)
	return e
}
