// want race=yes line=14
// a hash shared by every processor's iterations (hash.Hash32 from crc32)
package main

import (
	"fmt"
	"hash/crc32"
)

func main() {
	h := crc32.NewIEEE()
	//svm:pdo
	for i := range 64 {
		h.Write([]byte{byte(i)})
	}
	fmt.Println(h.Sum32())
}
