//go:build race

package codec

// raceEnabled: the race detector makes sync.Pool drop what it is given at
// random, so tests that count a pool's allocations skip.
const raceEnabled = true
