package device

import (
	"cmp"
	"strings"
	"time"
)

// Stop is who stopped a device with emergency_stop and when: an operator walking up to a
// halted rig needs both. Its halt's reason says them (Reason), so that the registry, the
// kept halt (HaltStore) and an older node that reads either show them without a new field.
type Stop struct {
	// By is the caller as the gateway knows it ("alice (claude) session 1a2b3c4d5e"): a
	// principal, a client label, a session's tag; never a token or a lease handle.
	By string
	At time.Time // when it halted, shown in UTC
}

// The parts of a stop's reason: "halted by emergency_stop from BY at TIME" and the advice.
const (
	stopHead    = "halted by emergency_stop"
	stopAdvice  = ": when a person has looked at it, resume with arm_recover"
	unknownBy   = "unknown"
	unknownTime = "unknown time"
)

// HaltReasonStop is the reason of an emergency_stop that says neither who nor when: what
// nodes before Stop kept (HaltStore). ParseStop reads it as a Stop of unknown caller and time.
const HaltReasonStop = stopHead + stopAdvice

// Reason is why a device this stop halted is unavailable, as its driver keeps it (HaltStore)
// and its node keeps it for a driver that is gone: who and when, "unknown" when not known.
func (s Stop) Reason() string {
	at := unknownTime
	if !s.At.IsZero() {
		at = s.At.UTC().Format(time.RFC3339)
	}
	return stopHead + " from " + cmp.Or(strings.TrimSpace(s.By), unknownBy) + " at " + at + stopAdvice
}

// IsStopReason reports whether a halt's reason is an emergency_stop's, of any node's version
// (with who and when or without): a rig holds it until arm_recover, not as a controller's alarm.
func IsStopReason(reason string) bool {
	return strings.HasPrefix(reason, stopHead+stopAdvice) || strings.HasPrefix(reason, stopHead+" from ")
}

// ParseStop reads who stopped a device and when from its halt's reason; ok is false when the
// reason is no emergency_stop's (a controller's alarm). An older node's reason, or a part
// not known, reads as the zero value: By "" and At zero, which Reason says as "unknown".
// Whatever follows the advice ("(halted under node n1)") is left out.
func ParseStop(reason string) (s Stop, ok bool) {
	if !IsStopReason(reason) {
		return Stop{}, false
	}
	rest, ok := strings.CutPrefix(reason, stopHead+" from ")
	if !ok {
		return Stop{}, true // an older node's: who and when unknown
	}
	if end := strings.Index(rest, stopAdvice); end >= 0 {
		rest = rest[:end]
	}
	by, at, found := cutLast(rest, " at ")
	if !found {
		return Stop{By: knownOr(rest)}, true // cut short: who, maybe
	}
	s.By = knownOr(by)
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		s.At = t.UTC()
	}
	return s, true
}

// cutLast is strings.Cut at the last sep: a caller's client label may hold " at ", a time not.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// knownOr is by, "" when it says unknown.
func knownOr(by string) string {
	if by == unknownBy {
		return ""
	}
	return by
}
