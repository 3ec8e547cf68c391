// Package view turns a trace into a timeline (processors × time, regions,
// waits, holds and measured intervals (MeasureStart / MeasureFinish) as
// nested intervals, every other record as an instant; the runtime's
// statistics and trace-end records, written after the run, are not drawn)
// and writes it as one self-contained HTML page: zoomable lanes, tooltips
// tied to the source lines of the program information, and a summary.
//
// The records of the processors are merged in a causally consistent order
// (seed 001, VISTOP; package replay) before anything is drawn, and every
// time on the timeline is the corrected time of that order: a barrier's
// exits are never drawn before its last entry, whatever the processors'
// clocks said. The exports (package export) read the same Timeline.
package view
