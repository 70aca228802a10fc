package measure

import (
	"fmt"
	"runtime"
	"slices"
	"time"
)

// A timing of Measure runs its operation for a number of blocks fixed once
// (calibrate) in every round, so that the rounds are alike and their
// median and range mean something; testing.Benchmark would ramp the count
// up again in every round, which took about as long as the round itself.

// maxBlocksPerRun caps the blocks of one run, as testing.Benchmark does.
const maxBlocksPerRun = 1e9

// runFor runs op on blocks 0, 1, .., k-1, 0, 1, .. n times, after a garbage
// collection, and returns the time and heap allocations per block and the
// run's whole duration. A panic in op is an error.
func runFor(k, n int, op func(i int) error) (Op, time.Duration, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0, cpuOK := cpuTime()
	start := time.Now()
	err := protect(func() error {
		i := 0
		for range n {
			if err := op(i); err != nil {
				return err
			}
			if i++; i == k {
				i = 0
			}
		}
		return nil
	})
	d := time.Since(start)
	cpu1, cpuOK2 := cpuTime()
	runtime.ReadMemStats(&after)
	if err != nil {
		return Op{}, d, err
	}
	f := float64(n)
	o := Op{
		NsPerBlock:         float64(d.Nanoseconds()) / f,
		AllocsPerBlock:     float64(after.Mallocs-before.Mallocs) / f,
		AllocBytesPerBlock: float64(after.TotalAlloc-before.TotalAlloc) / f,
		Blocks:             n,
	}
	if cpuOK && cpuOK2 {
		o.CPUNsPerBlock = float64((cpu1 - cpu0).Nanoseconds()) / f
	}
	return o, d, nil
}

// turn is one operation timed in turns with others (takeTurns).
type turn struct {
	// run is the operation on block i.
	run func(i int) error
	// what names the operation in its error ("encode").
	what string
	// err, shared by the turns that fail together (a format's encode and
	// decode), holds the first failure of any of them, after which none of
	// them runs again.
	err *error
	// n is the blocks of each run, fixed by the first round.
	n int
	// runs are the rounds' timings.
	runs []Op
}

// takeTurns times the operations ts, each cycling through k blocks, in
// opts.runs() rounds, one after another in each round: the first run of
// each finds how many blocks it takes to last opts' benchtime (calibrate),
// the later runs take as many, so that the runs are alike and their median
// and range mean something.
func takeTurns(k int, ts []*turn, opts Options) {
	for round := range opts.runs() {
		for _, t := range ts {
			if *t.err != nil {
				continue
			}
			var op Op
			var err error
			if round == 0 {
				t.n, op, err = calibrate(k, t.run, opts)
			} else {
				op, _, err = runFor(k, t.n, t.run)
			}
			if err != nil {
				if t.what != "" {
					err = fmt.Errorf("%s: %w", t.what, err)
				}
				*t.err = err
				continue
			}
			t.runs = append(t.runs, op)
		}
	}
}

// calibrate finds how many blocks a run of op takes to last at least
// opts' benchtime (or takes opts.Iterations), growing the count as
// testing.Benchmark does (by what the last run predicts, plus a fifth, at
// most 100 times), and returns it with the last run, which is the first
// round's.
func calibrate(k int, op func(i int) error, opts Options) (int, Op, error) {
	if opts.Iterations > 0 {
		o, _, err := runFor(k, opts.Iterations, op)
		return opts.Iterations, o, err
	}
	goal := opts.BenchTime
	if goal <= 0 {
		goal = DefaultBenchTime
	}
	n := 1
	for {
		o, d, err := runFor(k, n, op)
		if err != nil || d >= goal || n >= maxBlocksPerRun {
			return n, o, err
		}
		next := n * 100
		if d > 0 {
			next = int(min(float64(goal)*1.2*float64(n)/float64(d), float64(next)))
		}
		n = min(max(next, n+1), maxBlocksPerRun)
	}
}

// Spread returns the median, the smallest and the largest of xs (the mean
// of the two middle values for an even count), or zeros for none.
func Spread(xs []float64) (median, lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Sorted(slices.Values(xs))
	m := len(s) / 2
	median = s[m]
	if len(s)%2 == 0 {
		median = (s[m-1] + s[m]) / 2
	}
	return median, s[0], s[len(s)-1]
}
