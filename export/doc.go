// Package export writes a trace's timeline (view.Timeline: regions, waits
// and holds as intervals, other records as instants, in the corrected time
// of a causally consistent order) in formats that current tools open:
//
//   - Chrome trace-event JSON (WriteChrome), for Perfetto, chrome://tracing
//     and speedscope;
//   - OTF2 (WriteOTF2), for Vampir, Scalasca and ViTE, through the
//     reference library libotf2 via cgo. It is built only with the build
//     tag otf2 (Debian package libotf2-trace-dev):
//     go build -tags otf2 ./cmd/svmc. Without the tag WriteOTF2 returns
//     ErrNoOTF2, which says so.
package export
