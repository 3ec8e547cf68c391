// Command datasets loads and normalises two data sets in parallel
// sections, each with pdos of its own (a reduction, a shared slice made in
// the section), as a program that outgrows one machine runs them on ranks.
package main

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

type Dataset struct {
	Name   string
	Values []float64
}

func (d *Dataset) Normalize() {
	lo, hi := math.Inf(1), math.Inf(-1)
	//svm:pdo reduction(min: lo) reduction(max: hi)
	for _, v := range d.Values {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	span := hi - lo
	//svm:pdo
	for i := range d.Values {
		d.Values[i] = (d.Values[i] - lo) / span
	}
}

func load(name string, n int, f func(int) float64) (*Dataset, error) {
	if n <= 0 {
		return nil, errors.New(name + ": empty")
	}
	vals := make([]float64, n)
	//svm:shared vals
	d := &Dataset{Name: name, Values: vals}
	//svm:pdo
	for i := range n {
		d.Values[i] = f(i)
	}
	return d, nil
}

func main() {
	var a, b *Dataset
	var errA, errB error
	//svm:psection
	{
		//svm:section
		{
			a, errA = load("sin", 1000, func(i int) float64 { return math.Sin(float64(i) / 10) })
			if errA == nil {
				a.Normalize()
			}
		}
		//svm:section
		{
			b, errB = load("sq", 500, func(i int) float64 { return float64(i * i) })
			if errB == nil {
				b.Normalize()
			}
		}
	}
	if err := errors.Join(errA, errB); err != nil {
		fmt.Println("error:", err)
		return
	}
	var sb strings.Builder
	for _, d := range []*Dataset{a, b} {
		s := 0.0
		//svm:pdo reduction(+: s)
		for _, v := range d.Values {
			s += v
		}
		fmt.Fprintf(&sb, "%s mean %.6f; ", d.Name, s/float64(len(d.Values)))
	}
	fmt.Println(sb.String())
}
