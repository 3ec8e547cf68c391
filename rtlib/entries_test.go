package rtlib

import (
	"bytes"
	"os"
	"testing"

	"github.com/svmc/svmc/internal/entrygen"
)

//go:generate go run ../internal/entrygen/cmd

// TestEntriesGenerated: entries.go is what entrygen writes (go generate
// ./rtlib rewrites it).
func TestEntriesGenerated(t *testing.T) {
	have, err := os.ReadFile("entries.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, entrygen.Source()) {
		t.Errorf("entries.go is not what entrygen writes: go generate ./rtlib")
	}
}
