//go:build otf2

package export

/*
#cgo LDFLAGS: -lotf2
#include <stdlib.h>
#include <otf2/otf2.h>

// The pre-flush callback must return OTF2_FLUSH: anything else tells the
// library to drop the buffered records, and the archive stays empty.
static OTF2_FlushType svmc_pre_flush(void* userData, OTF2_FileType fileType,
	OTF2_LocationRef location, void* callerData, bool final) {
	return OTF2_FLUSH;
}

// No post-flush callback: the library then writes no BufferFlush records,
// which would need a clock of their own.
static OTF2_FlushCallbacks svmc_flush = { svmc_pre_flush, NULL };

static OTF2_ErrorCode svmc_set_flush(OTF2_Archive* a) {
	return OTF2_Archive_SetFlushCallbacks(a, &svmc_flush, NULL);
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/svmc/svmc/view"
)

// OTF2Available reports whether this build writes OTF2.
const OTF2Available = true

// WriteOTF2 writes tl as an OTF2 archive into dir (created if needed; it
// must not hold an archive already). The model: one system tree node for
// the run, a location group (a process) per processor with one location (a
// CPU thread); regions, waits and holds as Enter/Leave of regions with
// roles (see Role), one region per kind and site, a hold also as
// ThreadAcquireLock / ThreadReleaseLock (OpenMP's lock model: a critical
// section's name or a LOCK directive is a lock, with its acquisition
// order); each instance of a pdo, psection or replicated region as a
// ThreadFork (with its number of processors) and ThreadJoin of its leader;
// messages as MPI events of one communicator; instants as markers
// with the record as text. The clock is nanosecond ticks of the corrected time.
func WriteOTF2(dir string, tl *view.Timeline) (err error) {
	anchor := filepath.Join(dir, OTF2Archive+".otf2")
	if _, err := os.Stat(anchor); err == nil {
		return fmt.Errorf("%s already holds an OTF2 archive (%s); remove it or choose another directory", dir, anchor)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m := newOTF2Model(tl)
	cdir, cname := C.CString(dir), C.CString(OTF2Archive)
	defer C.free(unsafe.Pointer(cdir))
	defer C.free(unsafe.Pointer(cname))
	ar := C.OTF2_Archive_Open(cdir, cname, C.OTF2_FILEMODE_WRITE, 1<<20, 4<<20, C.OTF2_SUBSTRATE_POSIX, C.OTF2_COMPRESSION_NONE)
	if ar == nil {
		return fmt.Errorf("otf2: cannot create the archive %s", anchor)
	}
	closed := false
	defer func() {
		if !closed {
			C.OTF2_Archive_Close(ar)
		}
	}()
	check := func(what string, code C.OTF2_ErrorCode) {
		if code != C.OTF2_SUCCESS && err == nil {
			err = fmt.Errorf("otf2: %s: %s (%s)", what, C.GoString(C.OTF2_Error_GetName(code)), C.GoString(C.OTF2_Error_GetDescription(code)))
		}
	}
	check("flush callbacks", C.svmc_set_flush(ar))
	check("collective callbacks", C.OTF2_Archive_SetSerialCollectiveCallbacks(ar))
	if err != nil {
		return err
	}
	writeEvents(ar, tl, m, check)
	writeMarkers(ar, tl, m, check)
	// Every location's local definition file must be opened and closed,
	// even empty, or readers reject the archive.
	check("open definition files", C.OTF2_Archive_OpenDefFiles(ar))
	for p := 0; p < tl.Procs; p++ {
		dw := C.OTF2_Archive_GetDefWriter(ar, C.OTF2_LocationRef(p))
		if dw == nil {
			check(fmt.Sprintf("definition writer of location %d", p), C.OTF2_ERROR_MEM_ALLOC_FAILED)
			break
		}
		check("close definition writer", C.OTF2_Archive_CloseDefWriter(ar, dw))
	}
	check("close definition files", C.OTF2_Archive_CloseDefFiles(ar))
	writeGlobalDefs(ar, tl, m, check)
	if err != nil {
		return err
	}
	closed = true
	check("close archive", C.OTF2_Archive_Close(ar))
	if err == nil {
		// The library reports no error when its buffers were dropped
		// instead of written; the anchor file is the proof.
		if _, serr := os.Stat(anchor); serr != nil {
			err = fmt.Errorf("otf2: the library wrote no archive: %v", serr)
		}
	}
	return err
}

type checker func(what string, code C.OTF2_ErrorCode)

// writeEvents writes each processor's enters and leaves in the order it
// went through them.
func writeEvents(ar *C.OTF2_Archive, tl *view.Timeline, m *otf2Model, check checker) {
	check("open event files", C.OTF2_Archive_OpenEvtFiles(ar))
	writers := make([]*C.OTF2_EvtWriter, tl.Procs)
	for p := range writers {
		writers[p] = C.OTF2_Archive_GetEvtWriter(ar, C.OTF2_LocationRef(p))
		if writers[p] == nil {
			check(fmt.Sprintf("event writer of location %d", p), C.OTF2_ERROR_MEM_ALLOC_FAILED)
			return
		}
	}
	// Messages as MPI point-to-point events of the one communicator of
	// the processors: MpiSend after the Enter of the send call, MpiRecv
	// where the receive completed (before the Leave of Recv, or at the
	// Wait's completion record of an Irecv).
	type step struct{ proc, seq int }
	sends, recvs := map[step][]int{}, map[step][]int{}
	for i := range tl.Messages {
		mg := &tl.Messages[i]
		sends[step{mg.From, mg.SendSeq}] = append(sends[step{mg.From, mg.SendSeq}], i)
		recvs[step{mg.To, mg.RecvSeq}] = append(recvs[step{mg.To, mg.RecvSeq}], i)
	}
	for _, op := range Replay(tl) {
		at := step{op.Proc, op.Seq}
		if op.Op != OpEnter {
			for _, i := range recvs[at] {
				mg := &tl.Messages[i]
				check("mpi recv", C.OTF2_EvtWriter_MpiRecv(writers[mg.To], nil, C.OTF2_TimeStamp(ticks(mg.Recv)),
					C.uint32_t(mg.From), otf2Comm, C.uint32_t(mg.Tag), C.uint64_t(mg.Bytes)))
			}
		}
		if op.Op == OpInstant {
			continue
		}
		iv := &tl.Intervals[op.Index]
		w := writers[iv.Proc]
		region := C.OTF2_RegionRef(m.regionOf[op.Index])
		if op.Op == OpEnter {
			t := C.OTF2_TimeStamp(ticks(iv.Start))
			check("enter", C.OTF2_EvtWriter_Enter(w, nil, t, region))
			for _, i := range sends[at] {
				mg := &tl.Messages[i]
				check("mpi send", C.OTF2_EvtWriter_MpiSend(w, nil, t, C.uint32_t(mg.To), otf2Comm, C.uint32_t(mg.Tag), C.uint64_t(mg.Bytes)))
			}
			if iv.Kind == view.KindCollective {
				check("mpi collective begin", C.OTF2_EvtWriter_MpiCollectiveBegin(w, nil, t))
			}
			if n, ok := m.forkOf[op.Index]; ok {
				check("fork", C.OTF2_EvtWriter_ThreadFork(w, nil, t, C.OTF2_PARADIGM_OPENMP, C.uint32_t(n)))
			}
			if id, ok := m.lockOf[op.Index]; ok {
				check("acquire lock", C.OTF2_EvtWriter_ThreadAcquireLock(w, nil, t, C.OTF2_PARADIGM_OPENMP, C.uint32_t(id), C.uint32_t(m.acquired[op.Index])))
			}
		} else {
			t := C.OTF2_TimeStamp(ticks(iv.End))
			if iv.Kind == view.KindCollective {
				root := C.uint32_t(C.OTF2_UNDEFINED_UINT32)
				if iv.Peer >= 0 {
					root = C.uint32_t(iv.Peer)
				}
				check("mpi collective end", C.OTF2_EvtWriter_MpiCollectiveEnd(w, nil, t,
					collectiveOp(tl.Sites[iv.Site].Kind), otf2Comm, root, 0, 0))
			}
			if _, ok := m.forkOf[op.Index]; ok {
				check("join", C.OTF2_EvtWriter_ThreadJoin(w, nil, t, C.OTF2_PARADIGM_OPENMP))
			}
			if id, ok := m.lockOf[op.Index]; ok {
				check("release lock", C.OTF2_EvtWriter_ThreadReleaseLock(w, nil, t, C.OTF2_PARADIGM_OPENMP, C.uint32_t(id), C.uint32_t(m.acquired[op.Index])))
			}
			check("leave", C.OTF2_EvtWriter_Leave(w, nil, t, region))
		}
	}
	for _, w := range writers {
		check("close event writer", C.OTF2_Archive_CloseEvtWriter(ar, w))
	}
	check("close event files", C.OTF2_Archive_CloseEvtFiles(ar))
}

// otf2Comm is the communicator of all processors (writeGlobalDefs).
const otf2Comm = C.OTF2_CommRef(0)

// collectiveOp is the OTF2 collective operation of a collective function.
func collectiveOp(fn string) C.OTF2_CollectiveOp {
	switch fn {
	case "Bcast":
		return C.OTF2_COLLECTIVE_OP_BCAST
	case "Reduce":
		return C.OTF2_COLLECTIVE_OP_REDUCE
	case "Allreduce":
		return C.OTF2_COLLECTIVE_OP_ALLREDUCE
	case "Gather":
		return C.OTF2_COLLECTIVE_OP_GATHER
	case "Scatter":
		return C.OTF2_COLLECTIVE_OP_SCATTER
	case "Allgather":
		return C.OTF2_COLLECTIVE_OP_ALLGATHER
	case "Alltoall":
		return C.OTF2_COLLECTIVE_OP_ALLTOALL
	}
	return C.OTF2_COLLECTIVE_OP_BARRIER
}

// writeMarkers writes the instants as markers of their location: one
// marker definition per record name (group "svmc records"), the record as
// the marker's text.
func writeMarkers(ar *C.OTF2_Archive, tl *view.Timeline, m *otf2Model, check checker) {
	if len(tl.Instants) == 0 {
		return
	}
	mw := C.OTF2_Archive_GetMarkerWriter(ar)
	if mw == nil {
		check("marker writer", C.OTF2_ERROR_MEM_ALLOC_FAILED)
		return
	}
	group := C.CString("svmc records")
	defer C.free(unsafe.Pointer(group))
	for i, name := range m.markers {
		cn := C.CString(name)
		check("marker definition", C.OTF2_MarkerWriter_WriteDefMarker(mw, C.OTF2_MarkerRef(i), group, cn, C.OTF2_SEVERITY_NONE))
		C.free(unsafe.Pointer(cn))
	}
	for i := range tl.Instants {
		in := &tl.Instants[i]
		text := C.CString(in.Record)
		check("marker", C.OTF2_MarkerWriter_WriteMarker(mw, C.OTF2_TimeStamp(ticks(in.Time)), 0,
			C.OTF2_MarkerRef(m.markerOf[i]), C.OTF2_MARKER_SCOPE_LOCATION, C.uint64_t(in.Proc), text))
		C.free(unsafe.Pointer(text))
	}
	check("close marker writer", C.OTF2_Archive_CloseMarkerWriter(ar, mw))
}

// stringTable numbers the strings of the global definitions.
type stringTable struct {
	gw    *C.OTF2_GlobalDefWriter
	ids   map[string]C.OTF2_StringRef
	check checker
}

func (s *stringTable) ref(str string) C.OTF2_StringRef {
	if id, ok := s.ids[str]; ok {
		return id
	}
	id := C.OTF2_StringRef(len(s.ids))
	s.ids[str] = id
	cs := C.CString(str)
	s.check("string definition", C.OTF2_GlobalDefWriter_WriteString(s.gw, id, cs))
	C.free(unsafe.Pointer(cs))
	return id
}

func writeGlobalDefs(ar *C.OTF2_Archive, tl *view.Timeline, m *otf2Model, check checker) {
	gw := C.OTF2_Archive_GetGlobalDefWriter(ar)
	if gw == nil {
		check("global definition writer", C.OTF2_ERROR_MEM_ALLOC_FAILED)
		return
	}
	start, end := ticks(tl.Start), ticks(tl.End)
	check("clock properties", C.OTF2_GlobalDefWriter_WriteClockProperties(gw, TicksPerSecond,
		C.uint64_t(start), C.uint64_t(end-start), C.OTF2_UNDEFINED_TIMESTAMP))
	st := &stringTable{gw: gw, ids: map[string]C.OTF2_StringRef{}, check: check}
	empty := st.ref("")
	for i, r := range m.regions {
		file := empty
		if r.Site.File != "" {
			file = st.ref(r.Site.File)
		}
		desc := empty
		if r.Site.Text != "" {
			desc = st.ref(r.Site.Text)
		}
		name := st.ref(r.Name)
		begin, end := C.uint32_t(r.Site.Line), C.uint32_t(max(r.Site.EndLine, r.Site.Line))
		if !r.Kind.IsRegion() {
			end = begin // a wait is at its directive's line
		}
		check("region definition", C.OTF2_GlobalDefWriter_WriteRegion(gw, C.OTF2_RegionRef(i), name, name, desc,
			C.OTF2_RegionRole(r.Role), C.OTF2_PARADIGM_USER, C.OTF2_REGION_FLAG_NONE, file, begin, end))
	}
	run := "svmc run"
	if tl.Program != "" {
		run = "svmc run of " + tl.Program
	}
	check("system tree node", C.OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, st.ref(run), st.ref("run"),
		C.OTF2_UNDEFINED_SYSTEM_TREE_NODE))
	for p := 0; p < tl.Procs; p++ {
		name := st.ref(tl.LaneTitle(p))
		check("location group definition", C.OTF2_GlobalDefWriter_WriteLocationGroup(gw, C.OTF2_LocationGroupRef(p), name,
			C.OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, C.OTF2_UNDEFINED_LOCATION_GROUP))
		check("location definition", C.OTF2_GlobalDefWriter_WriteLocation(gw, C.OTF2_LocationRef(p), name,
			C.OTF2_LOCATION_TYPE_CPU_THREAD, C.uint64_t(m.events[p]), C.OTF2_LocationGroupRef(p)))
	}
	// The processors as one MPI communicator, as Score-P defines
	// MPI_COMM_WORLD: the locations of its ranks, the ranks, the comm.
	members := make([]C.uint64_t, tl.Procs)
	for p := range members {
		members[p] = C.uint64_t(p)
	}
	var mp *C.uint64_t
	if len(members) > 0 {
		mp = &members[0]
	}
	check("location group of the communicator", C.OTF2_GlobalDefWriter_WriteGroup(gw, 0, st.ref("svmc processors (locations)"),
		C.OTF2_GROUP_TYPE_COMM_LOCATIONS, C.OTF2_PARADIGM_MPI, C.OTF2_GROUP_FLAG_NONE, C.uint32_t(len(members)), mp))
	check("rank group of the communicator", C.OTF2_GlobalDefWriter_WriteGroup(gw, 1, st.ref("svmc processors"),
		C.OTF2_GROUP_TYPE_COMM_GROUP, C.OTF2_PARADIGM_MPI, C.OTF2_GROUP_FLAG_NONE, C.uint32_t(len(members)), mp))
	check("communicator", C.OTF2_GlobalDefWriter_WriteComm(gw, otf2Comm, st.ref("svmc processors"), 1,
		C.OTF2_UNDEFINED_COMM, C.OTF2_COMM_FLAG_NONE))
}
