// Package benchenv holds the small helpers the benchmarks of several
// packages share: settings from the environment and the row hash that
// picks partitions. It imports nothing of arrowpack, so the kernels'
// benchmarks can use it too.
package benchenv

import (
	"os"
	"strconv"
)

// Int returns the positive integer in the environment variable name, or
// def if it is unset or not one.
func Int(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// Splitmix64 is the splitmix64 finalizer: a cheap hash whose low bits are
// well mixed, so that x mod P spreads consecutive rows over partitions.
func Splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
