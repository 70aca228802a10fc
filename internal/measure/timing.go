package measure

import (
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
	runtime.ReadMemStats(&after)
	if err != nil {
		return Op{}, d, err
	}
	f := float64(n)
	return Op{
		NsPerBlock:         float64(d.Nanoseconds()) / f,
		AllocsPerBlock:     float64(after.Mallocs-before.Mallocs) / f,
		AllocBytesPerBlock: float64(after.TotalAlloc-before.TotalAlloc) / f,
		Blocks:             n,
	}, d, nil
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
