//go:build !(amd64 || arm64) || race

package rtlib

import "sync/atomic"

// storeRelease stores v at addr with (at least) release ordering: here
// sync/atomic's Store, which the race detector also understands (the
// assembly version's store is invisible to it).
func storeRelease(addr *int64, v int64) { atomic.StoreInt64(addr, v) }
