//go:build !unix

package measure

import "time"

// cpuTime reports that the CPU time is not known on this platform.
func cpuTime() (time.Duration, bool) { return 0, false }
