//go:build !(mpi && cgo)

package mpi

// Built reports whether this build has the MPI binding (build tag mpi,
// cgo enabled).
const Built = false
