//go:build !race

package codec

// raceEnabled: the race detector is on, under which sync.Pool drops put
// values at random, so allocation counts mean nothing.
const raceEnabled = false
