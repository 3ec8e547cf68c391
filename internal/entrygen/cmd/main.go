// Command entrygen writes rtlib/entries.go (go generate ./rtlib).
package main

import (
	"log"
	"os"

	"github.com/svmc/svmc/internal/entrygen"
)

func main() {
	if err := os.WriteFile("entries.go", entrygen.Source(), 0o644); err != nil {
		log.Fatal(err)
	}
}
