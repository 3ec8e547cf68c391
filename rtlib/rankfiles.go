package rtlib

import (
	"os"
)

// Files in code every rank runs (issue 16: "user output from processor 0
// only"). Under --mpi the exclusive code runs on every rank, and a file it
// writes was written by each: a log opened for appending got every line
// once per rank. A build for ranks calls these instead of os's functions
// of the same names: where the calling code is processor 0's copy on a
// rank other than 0 (or a goroutine it started), whose output goes
// nowhere, a file opened for writing is the null device and WriteFile
// writes nothing — rank 0's is the file; everywhere else (a pdo's
// iteration on its rank, one process) they are os's. A file opened for
// reading is the file. Directories, removals and renames are every rank's
// (the compiler warns where that fails on all ranks but one: ranks.go).

// echoes reports whether the code p runs is run for real on another rank:
// processor 0's copy of exclusive code on ranks other than 0, and the
// goroutines it starts.
func (p *Proc) echoes() bool {
	r := p.r
	if r == nil || !r.spread() {
		return false
	}
	id := p.id
	if p.lane {
		id = p.owner
	}
	return id/r.perRank != r.rank
}

func echoing() bool { return Current().echoes() }

// RankCreate is os.Create in a build for ranks.
func RankCreate(name string) (*os.File, error) {
	return RankOpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// RankOpenFile is os.OpenFile in a build for ranks: opened for writing,
// creating or truncating by a copy, it is the null device.
func RankOpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	if flag&(os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 && echoing() {
		return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	}
	return os.OpenFile(name, flag, perm)
}

// RankWriteFile is os.WriteFile in a build for ranks.
func RankWriteFile(name string, data []byte, perm os.FileMode) error {
	if echoing() {
		return nil
	}
	return os.WriteFile(name, data, perm)
}
