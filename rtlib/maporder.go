package rtlib

import (
	"cmp"
	"iter"
	"slices"
)

// Maps in code every rank runs (issue 16). Go visits a map in an order of
// its own in each process, so that under --mpi the exclusive code of two
// ranks, which should compute the same, built two different slices from
// one map (keys collected, then divided among the processors by a pdo):
// each rank's share of the loop belonged to another order, and the
// results were silently mixed. svmc's build for ranks ranges over maps
// whose keys are ordered through these, which visit them in key order on
// every rank. An entry deleted during the loop is not visited (as in Go);
// one added is not either (Go may or may not); a NaN key is never found
// again, so it is not visited.

// OrderedMap is the entries of m in the order of their keys.
func OrderedMap[M ~map[K]V, K cmp.Ordered, V any](m M) iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for _, k := range sortedKeys(m) {
			if v, ok := m[k]; ok && !yield(k, v) {
				return
			}
		}
	}
}

// OrderedAll is maps.All(m) in the order of the keys. svmc's rewriting
// passes maps.All itself too (of), so that the file's import of maps stays
// used.
func OrderedAll[M ~map[K]V, K cmp.Ordered, V any](of func(M) iter.Seq2[K, V], m M) iter.Seq2[K, V] {
	return OrderedMap(m)
}

// OrderedKeys is maps.Keys(m) in the order of the keys (of: maps.Keys, as
// for OrderedAll).
func OrderedKeys[M ~map[K]V, K cmp.Ordered, V any](of func(M) iter.Seq[K], m M) iter.Seq[K] {
	return func(yield func(K) bool) {
		for _, k := range sortedKeys(m) {
			if _, ok := m[k]; ok && !yield(k) {
				return
			}
		}
	}
}

// OrderedValues is maps.Values(m) in the order of the keys (of:
// maps.Values, as for OrderedAll).
func OrderedValues[M ~map[K]V, K cmp.Ordered, V any](of func(M) iter.Seq[V], m M) iter.Seq[V] {
	return func(yield func(V) bool) {
		for _, k := range sortedKeys(m) {
			if v, ok := m[k]; ok && !yield(v) {
				return
			}
		}
	}
}

func sortedKeys[M ~map[K]V, K cmp.Ordered, V any](m M) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
