// Package directives lexes and parses svmc's //svm: directive comments
// (DESIGN.md §2) into typed directives with source positions.
//
// A directive is a line comment beginning exactly "//svm:". Keywords are
// case-insensitive; names and expressions are Go and case-sensitive. An
// expression is any Go expression: it is cut out of the text by balancing
// (), [], {} and string/rune literals up to the ',', ')' or top-level ':'
// the grammar expects next, then parsed with go/parser. Blanks may separate
// all tokens, including "//svm:" and the keyword; a "//" outside literals
// starts a remark that is ignored. Every error is positioned at the column
// of the offending token and the parser keeps going, so ParseFile reports all
// the errors of a file at once.
//
// Grammar (EBNF; keywords in quotes, name is a Go identifier, Expr a Go
// expression):
//
//	Directive    = "//svm:" Body [ "//" remark ] .
//	Body         = Processors | Template | Distribute | Create | Destroy | Undef
//	             | PDO | "psection" | Section | "barrier" | "barrier_checkin"
//	             | "barrier_checkout" | Critical | Lock | "atomic" | "replicated"
//	             | "exclusive" | TraceRegion | End | Shared | Coherence | Prefetch .
//
//	Processors   = "processors" name Dims .           // no ':' dimension
//	Template     = "template" name Dims .             // all ':' (creatable) or none
//	Create       = "create" name Dims .               // no ':' dimension
//	Dims         = "(" Dim { "," Dim } ")" .
//	Dim          = Expr | Expr ":" Expr | ":" .       // extent | lo:hi | creatable
//	Distribute   = ( "distribute" | "redistribute" )
//	               ( "(" Format { "," Format } ")" [ "onto" name ] "::" NameList
//	               | NameList "with" name ) .
//	Format       = "block" | "cyclic" [ "(" Expr ")" ] | "general_block" "(" Expr ")"
//	             | "indirect" "(" Expr ")" | "*" .
//	Destroy      = "destroy" name .
//	Undef        = "undef" name .
//
//	PDO          = "pdo" Clause { [ "," ] Clause } .  // loops required; each clause
//	Clause       = "label" "(" name ")"               // at most once, but reduction
//	             | "loops" "(" NameList ")"
//	             | "processors" "(" name ")"
//	             | "strategy" "(" Strategy ")"
//	             | "reduction" "(" Reduction { ";" Reduction } ")"
//	             | "template" "(" name ")" .
//	Strategy     = "on_home" "(" name "(" ExprList ")" ")"
//	             | LoopFormat { "," LoopFormat }     // one per loop
//	             | "dynamic" [ "(" Expr ")" ] | "guided" [ "(" Expr ")" ] | "affinity" .
//	LoopFormat   = "block" | "cyclic" [ "(" Expr ")" ] .
//	Reduction    = ReduceOp ":" NameList .
//	ReduceOp     = "+" | "*" | "min" | "max" | "&" | "|" | "^" | "&&" | "||" .
//	Section      = "section" [ "processors" "(" name [ Dims ] ")" ] .   // Dims: a section of name
//
//	Critical     = "critical" [ name ] .
//	Lock         = "lock" "(" ExprList ")" .
//	TraceRegion  = "trace_region" name .
//	End          = "end" ( "critical" [ name ] | "trace_region" [ name ]
//	             | "replicated" | "exclusive" ) .
//	Shared       = "shared" NameList .
//	Coherence    = "coherence" "(" name ")" "::" NameList .
//	Prefetch     = "prefetch" ExprList .
//
//	NameList     = name { "," name } .
//	ExprList     = Expr { "," Expr } .
//
// Several reductions are written either as repeated clauses,
// reduction(+: s) reduction(max: m), or in one clause separated by ';',
// reduction(+: s; max: m). Go's && and || are accepted besides the bitwise
// operators because & and | are not defined on bool.
//
// Which directive may stand where (Table: OpensConstruct, EndForm,
// NeedsLoop) and what names refer to is checked by the compiler, not here.
package directives
