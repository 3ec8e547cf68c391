#include "textflag.h"

// func getg() uintptr: the address of the calling goroutine's runtime
// descriptor, which the runtime keeps in thread-local storage (the
// expansion of the runtime's get_tls and g macros).
TEXT ·getg(SB), NOSPLIT, $0-8
	MOVQ TLS, CX
	MOVQ 0(CX)(TLS*1), AX
	MOVQ AX, ret+0(FP)
	RET
