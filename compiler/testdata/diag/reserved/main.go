// Identifiers with the prefix svm_ would collide with the code svmc
// generates: every declaration of one is an error, whatever it declares.
package main

import svm_unsafe "unsafe" // want 8:`^the name svm_unsafe is reserved: svmc uses the prefix "svm_" for generated code; rename it$`

type svm_T struct{ svm_f int } // want 6:`the name svm_T is reserved` 20:`the name svm_f is reserved`

const svm_c = 1 // want 7:`the name svm_c is reserved`

var svm_v = 2 // want 5:`the name svm_v is reserved`

func svm_f(svm_p int) {} // want 6:`the name svm_f is reserved` 12:`the name svm_p is reserved`

func (svm_T) svm_M() {} // want 14:`the name svm_M is reserved`

func g[svm_E any](e svm_E) {} // want 8:`the name svm_E is reserved`

func main() {
	svm_x := svm_c + svm_v // want 2:`the name svm_x is reserved`
svm_L: // want 1:`the name svm_L is reserved`
	for range 1 {
		break svm_L
	}
	println(svm_x, svm_T{}.svm_f, svm_unsafe.Sizeof(0))
	svm_f(0)
	g(0)
}
