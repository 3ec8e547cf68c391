package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"regexp"
	"strconv"
)

var word = regexp.MustCompile(`[a-z]+`)
var h = sha256.New()
var n, err = strconv.Atoi(os.Getenv("N"))
var k = 5
var half = k / 2
var f = func() int { return n + k }
var table = map[string]int{"a": len("ab")}
var pair = [2]int{n, k}
var named fmt.Stringer = regexp.MustCompile("b")
var scaled = float64(n) * 1.5

func init() {
	fmt.Println("init", n)
}

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 10; i++ {
		s += i
	}
	fmt.Println(word.MatchString("x"), h.Size(), n, err == nil, half, f(), table["a"], pair, named, scaled, s)
}
