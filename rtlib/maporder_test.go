package rtlib

import (
	"maps"
	"slices"
	"testing"
)

// The ordered iterators visit a map in key order, skip what the loop
// deletes before reaching it, and stop where the loop breaks.
func TestOrderedMap(t *testing.T) {
	m := map[string]int{}
	for i := range 100 {
		m[string(rune('a'+i%26))+string(rune('a'+i/26))] = i
	}
	var keys []string
	for k, v := range OrderedMap(m) {
		if m[k] != v {
			t.Fatalf("%s: %d, want %d", k, v, m[k])
		}
		keys = append(keys, k)
	}
	if !slices.IsSorted(keys) || len(keys) != len(m) {
		t.Errorf("keys %v: not every key, in order", keys)
	}
	if got := slices.Collect(OrderedKeys(maps.Keys, m)); !slices.Equal(got, keys) {
		t.Errorf("OrderedKeys %v", got)
	}
	vals := slices.Collect(OrderedValues(maps.Values, m))
	for i, k := range keys {
		if vals[i] != m[k] {
			t.Fatalf("OrderedValues[%d] = %d, want %d", i, vals[i], m[k])
		}
	}
	visited := 0
	for k := range OrderedAll(maps.All, m) {
		visited++
		delete(m, k)
		delete(m, keys[len(keys)-1]) // not yet reached: never visited
		if visited == 10 {
			break
		}
	}
	if visited != 10 || len(m) != 89 {
		t.Errorf("visited %d, %d entries left; want 10 and 89", visited, len(m))
	}
	n := 0
	for range OrderedMap(map[float64]bool{3: true, 1: true}) {
		n++
	}
	if n != 2 {
		t.Errorf("%d entries of a float-keyed map", n)
	}
}
