package mcp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
)

// A stale_lease refusal is worded from the node's fields for the lease as the caller knows
// it, whatever the node's own words say; without fields (an older node) there are no words.
func TestEndedWordsFromFields(t *testing.T) {
	at := time.Date(2026, 3, 14, 15, 9, 26, 0, time.FixedZone("IST", 5*3600+30*60))
	refusal := func(e *broker.LeaseEnded) broker.TaskResult {
		return broker.TaskResult{Serial: "d1", Node: "n1", Outcome: broker.OutcomeRefused, Code: broker.CodeStaleLease,
			Error: "words the gateway must not need", LeaseEnded: e}
	}
	for _, tc := range []struct {
		ended *broker.LeaseEnded
		want  string
	}{
		{&broker.LeaseEnded{What: broker.LeaseExpired, Reason: "idle for the lease's TTL", At: at, Now: "d1 is free now"},
			"its lease of it expired at 2026-03-14T09:39:26Z (idle for the lease's TTL); d1 is free now"},
		{&broker.LeaseEnded{What: broker.LeaseReleased, Reason: "released by its holder", At: at, Now: "d1 is held by bob until 2026-03-14T10:00:00Z"},
			"its lease of it was released by its holder at 2026-03-14T09:39:26Z; d1 is held by bob until 2026-03-14T10:00:00Z"},
		{&broker.LeaseEnded{What: broker.LeaseRevoked, Reason: "forced release by ops", At: at},
			"its lease of it was revoked at 2026-03-14T09:39:26Z (forced release by ops)"},
		{&broker.LeaseEnded{What: broker.LeaseUnknown, Now: "d1 is free now"},
			"its lease of it is unknown to node n1 (never granted for d1, long ended, or from before the node restarted); d1 is free now"},
		{&broker.LeaseEnded{What: "fenced", Reason: "a newer node's word"}, "its lease of it was fenced (a newer node's word)"},
		{&broker.LeaseEnded{}, "its lease of it ended"},
	} {
		got, ok := endedWords(refusal(tc.ended), "its lease of it")
		assert.True(t, ok, "%+v", tc.ended)
		assert.Equal(t, tc.want, got)
	}
	_, ok := endedWords(refusal(nil), "its lease of it")
	assert.False(t, ok, "worded a refusal without fields")
}

// A selection's lease refused by an older node, which sends no fields, is told with the
// node's words whole, then what to do about the selection.
func TestSelectionStaleTextOfAnOlderNode(t *testing.T) {
	old := broker.TaskResult{Serial: "d1", Node: "n1", Outcome: broker.OutcomeRefused, Code: broker.CodeStaleLease,
		Error: "the lease you passed for d1 expired at 2026-03-14T15:09:26Z (idle for the lease's TTL); d1 is free now. Call acquire_device again"}
	assert.Equal(t, "the lease select_device took for d1 was refused: "+old.Error+
		". The selection is forgotten: call select_device again to hold d1 (a call naming it without a lease now runs without one)",
		selectionStaleText("d1", old, false))
	assert.Equal(t, "the lease select_device took for d1 was refused: "+old.Error+
		". This session's selection keeps d1 without a lease: call select_device again to hold it (until then calls on it run without one)",
		selectionStaleText("d1", old, true))
}
