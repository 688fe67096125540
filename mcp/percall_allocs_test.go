package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
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

// A POST that takes a stream is served with its callStream as its context: a context of its
// own (context.WithValue) took one allocation more. The 5 left: the callStream; its header
// apart, a map, and mcp-go's Content-Type in it (2); the request copy with its context.
func TestCallStreamPOSTIsItsOwnContext(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	answer := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	var seen bool
	h := (&Gateway{}).callStreams(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, seen = r.Context().Value(callStreamKey{}).(*callStream)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(""))
	r.Header.Set("Accept", "application/json, text/event-stream")
	w := &flushDiscard{h: http.Header{}}
	if n := testing.AllocsPerRun(100, func() { clear(w.h); h.ServeHTTP(w, r) }); n > 5 {
		t.Errorf("callStreams makes %v allocations a POST, want 5", n)
	}
	if !seen {
		t.Error("the call's context has no stream for notifyCall")
	}
}
