package mcp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// The values of one call's notifications increase across the gateway's waiting notifications
// and a task's own, even a task that counts from 0, and its progress/total still ends at 1.
func TestCallProgressValuesIncreaseAcrossWaitAndTask(t *testing.T) {
	for _, first := range []float64{0, waitingCeiling / 2, 0.1} {
		var sent []map[string]any
		p := &callProgress{token: "t", send: func(params map[string]any) { sent = append(sent, params) }}
		p.what = func(time.Duration) string { return "waiting for device s" }
		for range 5 {
			require.True(t, p.tellWaiting(0))
		}
		p.task(broker.Progress{Progress: first, Total: 1, Message: "first"})
		p.task(broker.Progress{Progress: first, Total: 1, Message: "the same again"}) // dropped
		p.task(broker.Progress{Progress: 1, Total: 1, Message: "done"})
		assert.False(t, p.tellWaiting(0), "waiting notifications after the task spoke")
		p.end()
		p.task(broker.Progress{Progress: 2, Total: 2, Message: "after the answer"})

		require.Len(t, sent, 7, "first value %v: %v", first, sent)
		last := -1.0
		for i, s := range sent {
			v := s["progress"].(float64)
			require.Greater(t, v, last, "first value %v: notification %d of %v", first, i, sent)
			last = v
		}
		end := sent[len(sent)-1]
		assert.Equal(t, "done", end["message"])
		assert.Equal(t, end["total"], end["progress"], "first value %v: done is progress == total", first)
	}
}
