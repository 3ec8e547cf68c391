//go:build !otf2

package export

import "github.com/svmc/svmc/view"

// OTF2Available reports whether this build writes OTF2.
const OTF2Available = false

// WriteOTF2 needs the build tag otf2 (see ErrNoOTF2).
func WriteOTF2(dir string, tl *view.Timeline) error { return ErrNoOTF2 }
