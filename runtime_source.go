// Package svmc holds the source of the runtime that instrumented programs
// link with. svmc writes it next to a program's build so that a package in
// any module builds against the runtime of this very svmc, offline.
package svmc

import "embed"

// RuntimeSource holds the packages an instrumented program imports: rtlib,
// the trace format, trace requests, the program information file and what
// they share (standard library only). Test files are left out when it is
// written out.
//
//go:embed rtlib/*.go rtlib/*.s rtlib/internal/*/*.go trace/*.go request/*.go progdb/*.go internal/suggest/*.go internal/limits/*.go internal/safetext/*.go
var RuntimeSource embed.FS

// Module is the module path of svmc, the import path prefix of the runtime.
const Module = "github.com/svmc/svmc"
