package redact

import (
	"regexp"
	"strings"
)

// Names no secret takes apart: a secret that is part of one is left in it, since the name
// shows elsewhere anyway and a mark inside it would only garble it.

// leaseHandleRE matches a lease or group handle (broker.NewLeaseHandle, NewGroupHandle).
var leaseHandleRE = regexp.MustCompile(`\b(lease|group)_[a-z2-7]{8,}\b`)

// taskIDRE matches a task id (broker.NewTaskID).
var taskIDRE = regexp.MustCompile(`\bt_[a-z2-7]{16}\b`)

// LeaseHandles is s with every lease or group handle replaced by shown's answer for it.
func LeaseHandles(s string, shown func(handle string) string) string {
	return leaseHandleRE.ReplaceAllStringFunc(s, shown)
}

// protectedSpans are the parts of s no secret is taken out of: lease handles, task ids, and
// every occurrence of names (a mark, serials).
func protectedSpans(s string, names []string) []span {
	var out []span
	for _, re := range []*regexp.Regexp{leaseHandleRE, taskIDRE} {
		for _, m := range re.FindAllStringIndex(s, -1) {
			out = append(out, span{m[0], m[1]})
		}
	}
	for _, k := range names {
		if k == "" {
			continue
		}
		for i := 0; ; {
			j := strings.Index(s[i:], k)
			if j < 0 {
				break
			}
			out = append(out, span{i + j, i + j + len(k)})
			i += j + len(k)
		}
	}
	return out
}
