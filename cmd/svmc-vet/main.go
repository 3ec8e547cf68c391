// Command svmc-vet is svmc's analyzer as a vet tool:
//
//	go vet -vettool=$(which svmc-vet) ./...
//
// It reports what svmc compile would say about //svm: directives and the
// checks of parallel bodies (package github.com/svmc/svmc/vet). svmc vet
// does the same without a second binary.
package main

import (
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/svmc/svmc/vet"
)

func main() { unitchecker.Main(vet.Analyzer) }
