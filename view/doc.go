// Package view turns a trace into a timeline (processors × time, regions,
// waits and holds as nested intervals, every other record as an instant)
// and writes it as one self-contained HTML page: zoomable lanes, tooltips
// tied to the source lines of the program information, and a summary.
//
// The records of the processors are merged in a causally consistent order
// (seed 001, VISTOP; analysis.Order) before anything is drawn, and every
// time on the timeline is the corrected time of that order: a barrier's
// exits are never drawn before its last entry, whatever the processors'
// clocks said. The exports (package export) read the same Timeline.
package view
