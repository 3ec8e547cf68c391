// want race=yes line=20
// a json.Encoder every processor's iterations write records through
package main

import (
	"encoding/json"
	"os"
)

type rec struct {
	I  int
	Sq int
}

func main() {
	enc := json.NewEncoder(os.Stdout)
	//svm:pdo
	for i := range 8 {
		r := rec{i, i * i}
		enc.Encode(r)
	}
}
