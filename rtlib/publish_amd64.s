//go:build !race

#include "textflag.h"

// func storeRelease(addr *int64, v int64): a plain store, which amd64's
// memory order already makes a release (stores become visible in program
// order); the call keeps the compiler from moving the record's stores
// after it. sync/atomic's Store is an XCHG, a full fence.
TEXT ·storeRelease(SB), NOSPLIT, $0-16
	MOVQ addr+0(FP), AX
	MOVQ v+8(FP), CX
	MOVQ CX, 0(AX)
	RET
