package request

import (
	"errors"
	"fmt"
	"strconv"
)

// MaxSize is the largest size ParseSize accepts: 1 TiB (1024G), more than
// any trace buffer a processor could fill.
const MaxSize = 1 << 40

// ParseSize reads a size in bytes: decimal digits with an optional suffix k
// or K (times 1024), m or M (1024²), g or G (1024³). It must be positive and
// at most MaxSize. The CONFIG sizes of request files and the runtime's size
// parameters are both read by it, so that they accept the same values.
func ParseSize(s string) (int64, error) {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	mult := int64(1)
	switch s[i:] {
	case "":
	case "k", "K":
		mult = 1 << 10
	case "m", "M":
		mult = 1 << 20
	case "g", "G":
		mult = 1 << 30
	default:
		return 0, fmt.Errorf("bad size %q: want a number of bytes, optionally followed by k, M or G", s)
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if i == 0 {
		return 0, fmt.Errorf("bad size %q: want a number of bytes, optionally followed by k, M or G", s)
	}
	if err != nil || n > MaxSize/mult {
		return 0, fmt.Errorf("bad size %q: too large (at most %dG)", s, MaxSize>>30)
	}
	if n == 0 {
		return 0, errors.New("bad size " + strconv.Quote(s) + ": a buffer needs at least one byte")
	}
	return n * mult, nil
}
