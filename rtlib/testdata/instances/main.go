// A program that refers to the runtime's types as instrumented code does
// (TestGenericInstances compiles it and counts what it compiles of them).
package main

import svm_rt "github.com/svmc/svmc/rtlib"

var svm_program = svm_rt.Program{Main: 1}

func main() {
	svm_rt.Main(&svm_program, func(svm_p *svm_rt.Proc) {
		svm_p.PDO(1, 1, svm_rt.DefaultSchedule(), []svm_rt.Range{{Lo: 0, Hi: 9, Step: 1}}, func(svm_p *svm_rt.Proc, svm_it *svm_rt.Iter) {
			for svm_it.NextRun() {
				svm_it.Run()
			}
		})
	})
}
