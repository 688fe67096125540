package tools

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A short sleep reports about every tenth of it, 100 ms apart at least.
func TestSleepForReportsEveryTick(t *testing.T) {
	var mu sync.Mutex
	var done []float64
	err := sleepFor(context.Background(), 450*time.Millisecond, func(d, total float64, msg string) {
		mu.Lock()
		defer mu.Unlock()
		if total != 0.45 || msg == "" {
			t.Errorf("progress total %v msg %q", total, msg)
		}
		done = append(done, d)
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(done) < 3 || len(done) > 6 {
		t.Fatalf("want 3 to 6 progress reports (every 100 ms, and the end), got %v", done)
	}
	for i := 1; i < len(done); i++ {
		if done[i] <= done[i-1] || done[i] > 0.45 {
			t.Fatalf("progress does not increase within the total: %v", done)
		}
	}
}

// A sleep whose tick falls due with its end (120 ms: one tick of 120 ms) reports its end once:
// MCP progress must increase with every notification.
func TestSleepForEndsWithOneReportOfTheTotal(t *testing.T) {
	for range 30 {
		var done []float64 // sleepFor calls back from the calling goroutine
		require.NoError(t, sleepFor(context.Background(), 120*time.Millisecond, func(d, _ float64, _ string) {
			done = append(done, d)
		}))
		require.NotEmpty(t, done)
		require.Equal(t, 0.12, done[len(done)-1], "the last report is the total")
		for i := 1; i < len(done); i++ {
			require.Greater(t, done[i], done[i-1], "progress must increase: %v", done)
		}
	}
}

func TestSleepTimeoutCoversTheLongestSleep(t *testing.T) {
	for _, name := range []string{"sleep", "sleep_ms"} {
		op := DefaultOps()[name]
		if op.Timeout <= MaxSleep || op.MaxTimeout < op.Timeout {
			t.Errorf("%s: timeout %v / max %v must exceed the longest sleep %v", name, op.Timeout, op.MaxTimeout, MaxSleep)
		}
	}
}
