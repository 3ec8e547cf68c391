//go:build !race

package rtlib

const raceOn = false
