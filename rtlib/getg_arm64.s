#include "textflag.h"

// func getg() uintptr: the address of the calling goroutine's runtime
// descriptor, which arm64 keeps in register g (R28).
TEXT ·getg(SB), NOSPLIT, $0-8
	MOVD g, R0
	MOVD R0, ret+0(FP)
	RET
