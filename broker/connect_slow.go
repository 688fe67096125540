package broker

import "strings"

// isCallerAnswer says whether subject is where a node takes the answer to a probe of a call's
// caller (CallerAnswerSubject). The node reads one answer there and leaves: a second one that
// comes before it left (seen as NATS reconnects) finds the subscription's one-message channel
// full, and nats.go reports it as a slow consumer, which it is not: nothing it needs is lost.
func isCallerAnswer(subject string) bool {
	last := subject[strings.LastIndexByte(subject, '.')+1:]
	return strings.HasPrefix(subject, Prefix+".node.") && strings.HasPrefix(last, callerAnswerPrefix)
}
