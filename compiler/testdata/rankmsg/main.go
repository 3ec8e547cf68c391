// Messages of a build for ranks (TestRankMessages).
package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

type note struct {
	from int
	text string
}

type point struct{ x, y float64 }

func main() {
	n := rtlib.NumProcessors()
	texts := make([]string, n)
	sums := make([]float64, n)
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		if me != 0 {
			rtlib.Send(0, 1, []note{{me, "hi"}})
			rtlib.Send(0, 2, []point{{1, 2}})
		} else {
			for src := 1; src < n; src++ {
				buf := make([]note, 1)
				rtlib.Recv(src, 1, buf)
				texts[src] = buf[0].text
				pts := make([]point, 1)
				rtlib.Recv(src, 2, pts)
				sums[src] = pts[0].x + pts[0].y
			}
		}
	}
	fmt.Println(texts, sums)
}
