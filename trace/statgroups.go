package trace

import "strings"

// StatGroupInfo names a group of runtime functions of the interval matrix of
// Lib-DVM's statistics (seed 000 §11.1.1): the "group" and "caller group"
// fields of stat-group are indexes into StatGroups, its "group name" the
// Name.
type StatGroupInfo struct {
	Name        string // Lib-DVM's name (UserGrp, MapPLGrp, ...); svmc's own groups end in Grp too
	Description string
	SvmcOnly    bool // a group svmc adds (no Lib-DVM function of the kind)
}

// The groups by number. Lib-DVM's StartShdGrp, WaitShdGrp, ShdGrp (shadow
// edges), PrgBlockGrp and RemAccessGrp have no svmc function and are left
// out; svmc adds SyncGrp and SectGrp.
const (
	StatUserGrp = iota
	StatMsgPasGrp
	StatStartRedGrp
	StatWaitRedGrp
	StatRedGrp
	StatDistrGrp
	StatReDistrGrp
	StatMapPLGrp
	StatDoPLGrp
	StatIOGrp
	StatUserDebGrp
	StatStatistGrp
	StatSyncGrp
	StatSectGrp
	StatSystemGrp
	StatGrpCount
)

// StatGroups describes the groups by number.
var StatGroups = [StatGrpCount]StatGroupInfo{
	StatUserGrp:     {Name: "UserGrp", Description: "the user program itself"},
	StatMsgPasGrp:   {Name: "MsgPasGrp", Description: "message passing (all lost time; productive time is the real dissynchronisation)"},
	StatStartRedGrp: {Name: "StartRedGrp", Description: "reductions: handing a partial result over"},
	StatWaitRedGrp:  {Name: "WaitRedGrp", Description: "reductions: waiting for the result"},
	StatRedGrp:      {Name: "RedGrp", Description: "reductions: combining the partial results"},
	StatDistrGrp:    {Name: "DistrGrp", Description: "templates, processor arrangements and their distribution"},
	StatReDistrGrp:  {Name: "ReDistrGrp", Description: "redistribution"},
	StatMapPLGrp:    {Name: "MapPLGrp", Description: "parallel loops: schedule, dispatch and the loop's own barrier"},
	StatDoPLGrp:     {Name: "DoPLGrp", Description: "parallel loops: requesting the next portion of iterations (dynamic, guided, affinity)"},
	StatIOGrp:       {Name: "IOGrp", Description: "input/output: user output routed through the runtime, rtl_printf"},
	StatUserDebGrp:  {Name: "UserDebGrp", Description: "tracing: handing full trace buffers to the writer"},
	StatStatistGrp:  {Name: "StatistGrp", Description: "measured intervals"},
	StatSyncGrp:     {Name: "SyncGrp", Description: "barriers, locks, critical sections", SvmcOnly: true},
	StatSectGrp:     {Name: "SectGrp", Description: "parallel sections and replicated regions", SvmcOnly: true},
	StatSystemGrp:   {Name: "SystemGrp", Description: "other runtime functions"},
}

// StatGroupByName is the number of the group named name (Lib-DVM's name,
// any case), or -1.
func StatGroupByName(name string) int {
	for i, g := range StatGroups {
		if strings.EqualFold(g.Name, name) {
			return i
		}
	}
	return -1
}
