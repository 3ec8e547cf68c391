// Package sched is the scheduling mathematics of the runtime, without
// processors: index ranges and loop ranges, sets of intervals and the trees
// that walk a union of boxes in lexicographic order, distribution formats
// and their maps from indices to processor coordinates, the distribution of
// a template or of a loop nest onto an arrangement, and the distributions a
// dynamic schedule records. Package rtlib plans and runs PDOs with it.
package sched
