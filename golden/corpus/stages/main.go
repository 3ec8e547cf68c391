// Stages of a pipeline behind an interface, each a pdo in a method; errors
// wrapped with %w and tested with errors.Is, a recovered panic of a nil
// interface, and a user trace region left by return.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

type stage interface {
	Name() string
	Run(data []float64) error
}

type scale struct{ k float64 }
type clamp struct{ lo, hi float64 }
type validate struct{}

func (s scale) Name() string { return fmt.Sprintf("scale(%g)", s.k) }
func (s scale) Run(d []float64) error {
	//svm:pdo loops(i)
	for i := range d {
		d[i] *= s.k
	}
	return nil
}

func (c clamp) Name() string { return "clamp" }
func (c clamp) Run(d []float64) error {
	n := 0
	//svm:pdo loops(i) reduction(+: n)
	for i := range d {
		if d[i] < c.lo {
			d[i], n = c.lo, n+1
		} else if d[i] > c.hi {
			d[i], n = c.hi, n+1
		}
	}
	if n > len(d)/2 {
		return fmt.Errorf("clamp: %d of %d values out of range", n, len(d))
	}
	return nil
}

var errNaN = errors.New("NaN in data")

func (validate) Name() string { return "validate" }
func (validate) Run(d []float64) (err error) {
	//svm:trace_region check
	{
		for _, x := range d {
			if x != x {
				return errNaN
			}
		}
	}
	return nil
}

func pipeline(stages []stage, d []float64) (log []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("stage panicked: %v", r)
		}
	}()
	for _, s := range stages {
		if err := s.Run(d); err != nil {
			return log, fmt.Errorf("%s: %w", s.Name(), err)
		}
		log = append(log, s.Name())
	}
	return log, nil
}

func main() {
	d := make([]float64, 64)
	for i := range d {
		d[i] = float64(i) - 20
	}
	log, err := pipeline([]stage{scale{0.5}, clamp{-5, 10}, validate{}}, d)
	fmt.Println(strings.Join(log, " -> "), err, d[0], d[63])
	d[3] = d[3] / 0 * 0
	log, err = pipeline([]stage{validate{}, scale{2}}, d)
	fmt.Println(strings.Join(log, " -> "), errors.Is(err, errNaN), err)
	log, err = pipeline([]stage{clamp{100, 200}}, d)
	fmt.Println(log, err)
	var nilStage stage
	_, err = pipeline([]stage{scale{1}, nilStage}, d)
	fmt.Println(err)
	if err != nil {
		fmt.Fprintln(os.Stderr, "done with errors")
	}
}
