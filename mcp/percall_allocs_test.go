package mcp

import (
	"context"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// A result with one text, what most calls answer, is allocated with its content slot
// (textResult): a refusal's or a text answer's is the result and its boxed text, a
// structured one adds its JSON's box and text mirror. Each took one allocation more.
func TestOneTextResultAllocatesWithItsSlot(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ctx, _ := withCallSlot(context.Background(), "tap")
	g := &Gateway{}
	raw := []byte(`{"message":"Tapped (540, 1200)."}`)
	for _, tc := range []struct {
		name string
		want float64
		f    func()
	}{
		{"errorResult", 2, func() { resultSink = errorResult("refused") }},
		{"toolResult text", 2, func() {
			resultSink = g.toolResult(ctx, broker.TaskResult{Outcome: broker.OutcomeSucceeded, Text: "Tapped (540, 1200)."})
		}},
		{"toolResult structured", 4, func() { resultSink = g.toolResult(ctx, broker.TaskResult{Outcome: broker.OutcomeSucceeded, Data: raw}) }},
		{"structuredJSON", 4, func() { resultSink = structuredJSON(ctx, raw) }},
	} {
		if n := testing.AllocsPerRun(100, tc.f); n > tc.want {
			t.Errorf("%s makes %v allocations, want %v", tc.name, n, tc.want)
		}
	}
}
