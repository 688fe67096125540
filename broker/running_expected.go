package broker

import "time"

// Left says how long the task should still run at now, from Expected (ExpectedLeft).
func (r *RunningTask) Left(now time.Time) (time.Duration, bool) {
	if r == nil {
		return 0, false
	}
	return ExpectedLeft(r.Expected, now)
}

// ExpectedLeft says how long a task expected to end at expected should still run at now,
// rounded to the second (at least 1 s); false when its tool could not tell (zero), or when it
// is past it (only its deadline is known then). The node's, the gateway's and the console's
// busy answers word it alike: "for about 12s more".
func ExpectedLeft(expected, now time.Time) (time.Duration, bool) {
	if expected.IsZero() || !now.Before(expected) {
		return 0, false
	}
	return max(expected.Sub(now).Round(time.Second), time.Second), true
}
