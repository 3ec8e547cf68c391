package diff

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/svmc/svmc/analysis"
)

// Several runs a side (svmc diff A1 A2 ... -- B1 B2 ...): a region's time
// changes from run to run on a shared machine, so a change is said to be
// real only when it is larger than that noise. As benchstat does, each
// side is summarised by its median, and the two samples are compared with
// the Mann-Whitney U test (no assumption of a distribution).

// Alpha is the significance level of the runs' comparison.
const Alpha = 0.05

// Noise compares the regions' times over several runs a side.
type Noise struct {
	RunsA   int            `json:"runs_a"`
	RunsB   int            `json:"runs_b"`
	Alpha   float64        `json:"alpha"`
	MinP    float64        `json:"min_p"` // the smallest p these numbers of runs can give
	Regions []*RegionNoise `json:"regions"`
}

// RegionNoise is one region over the runs: its slowest processor's
// inclusive time in each run (µs), the median and spread of each side
// (half the range, relative to the median), the change of the medians and
// the p-value of the difference. The run itself is the first row.
type RegionNoise struct {
	Name        string        `json:"name"`
	Site        analysis.Site `json:"site"`
	A           []float64     `json:"a_us"`
	B           []float64     `json:"b_us"`
	MedianA     float64       `json:"median_a_us"`
	MedianB     float64       `json:"median_b_us"`
	SpreadA     float64       `json:"spread_a"`
	SpreadB     float64       `json:"spread_b"`
	Change      float64       `json:"change"` // MedianB / MedianA − 1
	P           float64       `json:"p"`
	Significant bool          `json:"significant"`
	Run         bool          `json:"run,omitempty"` // the whole run (its elapsed time)
}

// CompareRuns compares the runs of side A with those of side B, region by
// region (regions missing from a run are left out of its sample).
func CompareRuns(as, bs []*analysis.Model) *Noise {
	n := &Noise{RunsA: len(as), RunsB: len(bs), Alpha: Alpha, MinP: mannWhitneyMinP(len(as), len(bs))}
	type rkey struct{ sub, dir, code int }
	rows := map[rkey]*RegionNoise{}
	var order []rkey
	run := &RegionNoise{Name: "the run (T)", Run: true}
	for side, ms := range [][]*analysis.Model{as, bs} {
		for _, m := range ms {
			if side == 0 {
				run.A = append(run.A, m.Duration)
			} else {
				run.B = append(run.B, m.Duration)
			}
			for _, rs := range m.Regions {
				k := rkey{rs.Sub, rs.Dir, rs.Code}
				r := rows[k]
				if r == nil {
					r = &RegionNoise{Name: regionName(rs), Site: rs.Site}
					rows[k] = r
					order = append(order, k)
				}
				slowest := 0.0
				for _, p := range rs.PerProc {
					slowest = max(slowest, p.Incl)
				}
				if side == 0 {
					r.A = append(r.A, slowest)
				} else {
					r.B = append(r.B, slowest)
				}
			}
		}
	}
	n.Regions = append(n.Regions, run)
	for _, k := range order {
		if r := rows[k]; len(r.A) > 0 && len(r.B) > 0 {
			n.Regions = append(n.Regions, r)
		}
	}
	for _, r := range n.Regions {
		r.MedianA, r.SpreadA = summary(r.A)
		r.MedianB, r.SpreadB = summary(r.B)
		r.Change = ratio(r.MedianB, r.MedianA) - 1
		r.P = mannWhitneyP(r.A, r.B)
		r.Significant = r.P < Alpha
	}
	// The run first, then the regions whose medians moved most.
	slices.SortStableFunc(n.Regions[1:], func(x, y *RegionNoise) int {
		return cmp.Compare(math.Abs(y.MedianB-y.MedianA), math.Abs(x.MedianB-x.MedianA))
	})
	return n
}

// summary is the median of xs and half its range relative to the median.
func summary(xs []float64) (median, spread float64) {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return 0, 0
	}
	if len(s)%2 == 1 {
		median = s[len(s)/2]
	} else {
		median = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return median, ratio((s[len(s)-1]-s[0])/2, median)
}

// mannWhitneyP is the two-sided p-value of the Mann-Whitney U test of xs
// against ys: exact (the distribution of U counted over every ordering of
// the two samples) while that is small, the normal approximation with
// continuity correction beyond. Ties count half.
func mannWhitneyP(xs, ys []float64) float64 {
	n1, n2 := len(xs), len(ys)
	if n1 == 0 || n2 == 0 {
		return 1
	}
	u := 0.0 // pairs where x > y, ties counting half
	for _, x := range xs {
		for _, y := range ys {
			switch {
			case x > y:
				u++
			case x == y:
				u += 0.5
			}
		}
	}
	mn := float64(n1 * n2)
	lo := min(u, mn-u) // the smaller tail
	if n1*n2 <= 400 {
		counts := uCounts(n1, n2)
		total, tail := 0.0, 0.0
		for k, c := range counts {
			total += c
			if float64(k) <= lo {
				tail += c
			}
		}
		return min(1, 2*tail/total)
	}
	mean := mn / 2
	sd := math.Sqrt(mn * float64(n1+n2+1) / 12)
	z := (mean - lo - 0.5) / sd
	return min(1, math.Erfc(z/math.Sqrt2))
}

// uCounts[k] is the number of orderings of n1 and n2 distinct values in
// which U = k (the recurrence f(m, n, k) = f(m−1, n, k−n) + f(m, n−1, k)).
func uCounts(n1, n2 int) []float64 {
	// f[m][n] is the distribution for samples of m and n.
	f := make([][][]float64, n1+1)
	for m := range f {
		f[m] = make([][]float64, n2+1)
		for n := range f[m] {
			d := make([]float64, m*n+1)
			switch {
			case m == 0 || n == 0:
				d[0] = 1
			default:
				for k := range d {
					if k-n >= 0 && k-n < len(f[m-1][n]) {
						d[k] += f[m-1][n][k-n]
					}
					if k < len(f[m][n-1]) {
						d[k] += f[m][n-1][k]
					}
				}
			}
			f[m][n] = d
		}
	}
	return f[n1][n2]
}

// mannWhitneyMinP is the smallest p-value samples of n1 and n2 can give:
// both orderings of complete separation, of all orderings.
func mannWhitneyMinP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	all := 1.0 // C(n1+n2, n1)
	for i := 1; i <= n1; i++ {
		all = all * float64(n2+i) / float64(i)
	}
	return min(1, 2/all)
}

// WriteText prints the comparison of the runs.
func (n *Noise) WriteText(w io.Writer) {
	fmt.Fprintf(w, "\nOver the runs: %d of A, %d of B (median ± half the range; p of the Mann-Whitney U test, ~ where p ≥ %.2f: within the noise)\n",
		n.RunsA, n.RunsB, n.Alpha)
	if n.MinP >= n.Alpha {
		fmt.Fprintf(w, "  note: with %d and %d runs no change can reach p < %.2f (the smallest p is %.3f); give at least 4 runs a side\n", n.RunsA, n.RunsB, n.Alpha, n.MinP)
	}
	t := analysis.NewTable("region", "where", ">A", ">±", ">B", ">±", ">change", ">p", "")
	for _, r := range n.Regions {
		change, mark := signedPct(r.Change), ""
		if !r.Significant {
			change, mark = "~", "within the noise"
		}
		where := r.Site.Where()
		if r.Run {
			where = ""
		}
		t.Add(r.Name, where, analysis.Dur(r.MedianA), pct(r.SpreadA), analysis.Dur(r.MedianB), pct(r.SpreadB), change,
			strconv.FormatFloat(r.P, 'f', 3, 64), mark)
	}
	t.Write(w, "  ")
}
