//go:build !race

#include "textflag.h"

// func storeRelease(addr *int64, v int64): a store-release (STLR), the
// ordering publication needs, without sync/atomic's full barrier.
TEXT ·storeRelease(SB), NOSPLIT, $0-16
	MOVD addr+0(FP), R0
	MOVD v+8(FP), R1
	STLR R1, (R0)
	RET
