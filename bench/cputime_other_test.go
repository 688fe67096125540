//go:build !unix

package bench

import "time"

// cpuTime is unknown here: cpu-µs/call is then reported as 0.
func cpuTime() time.Duration { return 0 }
