// Package text splits and counts words.
package text

import (
	"strings"
	"unicode"
)

// Counter counts words.
type Counter interface {
	Add(word string)
	Counts() map[string]int
}

// MapCounter is a Counter over a map.
type MapCounter struct{ m map[string]int }

func NewMapCounter() *MapCounter { return &MapCounter{m: map[string]int{}} }

func (c *MapCounter) Add(w string)           { c.m[w]++ }
func (c *MapCounter) Counts() map[string]int { return c.m }

// Words splits s into lower-case words.
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
}
