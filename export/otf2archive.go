package export

import "errors"

// OTF2Archive is the archive name WriteOTF2 uses: DIR/traces.otf2 is the
// anchor file that tools open.
const OTF2Archive = "traces"

// ErrNoOTF2 is WriteOTF2's error in a build without the otf2 tag.
var ErrNoOTF2 = errors.New("this svmc was built without OTF2 support; install the OTF2 library " +
	"(Debian: apt-get install libotf2-trace-dev) and build with: go build -tags otf2 ./cmd/svmc")
