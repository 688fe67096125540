package main

import (
	"maps"
	"regexp"
	"strings"

	"github.com/corral-farm/corral/mcp/steps"
)

// A run's reports go where CI keeps its artifacts, read by more people than hold the devices:
// the lease handles a run used (its steps' lease arguments, acquire_device's answer) are the
// holders' secrets, and are left out of them.

// leaseHandleRE matches a lease or group handle (broker.NewLeaseHandle, NewGroupHandle).
var leaseHandleRE = regexp.MustCompile(`\b(lease|group)_[a-z2-7]{8,}\b`)

// redactedHandle stands for a handle left out: its kind, not its secret.
func redactedHandle(h string) string {
	kind, _, ok := strings.Cut(h, "_")
	if !ok || kind != "lease" && kind != "group" {
		return "…(redacted)"
	}
	return kind + "_…(redacted)"
}

// redactLeases replaces the lease handles in s.
func redactLeases(s string) string {
	return leaseHandleRE.ReplaceAllStringFunc(s, redactedHandle)
}

// redactResult is r without lease handles: in its lease argument, its text and its error.
func redactResult(r steps.Result) steps.Result {
	if h, ok := r.Arguments["lease"].(string); ok && h != "" {
		r.Arguments = maps.Clone(r.Arguments)
		r.Arguments["lease"] = redactedHandle(h)
	}
	r.Text, r.Error, r.Reason = redactLeases(r.Text), redactLeases(r.Error), redactLeases(r.Reason)
	return r
}

// redactReport takes the lease handles out of every step of rep.
func redactReport(rep *steps.Report) {
	for i := range rep.Steps {
		rep.Steps[i] = redactResult(rep.Steps[i])
	}
}
