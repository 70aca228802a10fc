//go:build race

package flight

const raceEnabled = true
