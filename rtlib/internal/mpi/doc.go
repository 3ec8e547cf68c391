// Package mpi is svmc's binding of the system's MPI library (issue 16): the
// transport that lets the processors of one run be the ranks of an MPI job
// on several machines. It is built only with the build tag mpi (cgo against
// the MPI found through pkg-config, OpenMPI or MPICH), so that the default
// build of an instrumented program needs no C compiler; without the tag the
// package holds only Built, false.
//
// Threads. MPI libraries hang or crash under MPI_THREAD_MULTIPLE, so the
// binding asks for MPI_THREAD_FUNNELED: every call is made by the goroutine
// that called Init, which Init locks to its OS thread for the rest of the
// job. That goroutine is the rank's processor, which makes every call of
// the runtime's constructs, so its calls go straight to C with no hand-off
// (the latency of a message is MPI's own).
//
// Memory. A blocking call passes the Go slice itself (cgo keeps it in place
// for the call); a non-blocking one pins it (runtime.Pinner) until Wait or
// Test completes the request. Element types are the Number types: plain
// values, no Go pointers, sent as bytes.
//
// Errors. The communicator returns errors instead of aborting
// (MPI_ERRORS_RETURN); each is returned as an error naming the call, the
// peer and MPI's own message.
package mpi
