package broker

import (
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With the sessions' bucket full, every task's latest-id write fails: the gateway warns once a
// minute, not once per tool call, and the next warning counts the ids not stored since
// (docs/operations.md, Sessions store full).
func TestLatestTaskNotStoredIsLoggedOnceAMinute(t *testing.T) {
	s := openStoresWith(t, StoreOptions{SessionsMaxBytes: 16 << 10})
	var err error
	n := 0
	for _, size := range []int{512, 1} { // then no room is left for the smallest latest-id entry
		for err = nil; n < 2000 && err == nil; n++ {
			_, err = s.Sessions.Put(call(t), fmt.Sprintf("f%d", n), []byte(strings.Repeat("x", size)))
		}
		require.Error(t, err, "the bucket capped at 16 KiB never filled")
		require.True(t, SessionsFull(err), "%v", err)
	}

	var logs logtest.Recorder
	c := startClient(t, s, ClientOptions{Log: slog.New(&logs)})
	var later atomic.Int64 // how far the limiter's clock is ahead of the real one
	c.latest.unstored.now = func() time.Time { return time.Now().Add(time.Duration(later.Load())) }
	warnings := func() []slog.Record {
		var out []slog.Record
		for _, r := range logs.Records() {
			if strings.HasPrefix(r.Message, "latest task not stored in NATS") {
				out = append(out, r)
			}
		}
		return out
	}

	const tasks = 50
	for i := 0; i < tasks; i++ {
		require.NoError(t, c.SetLatestTask(t.Context(), fmt.Sprintf("caller%d", i), fmt.Sprintf("t_%d", i)))
	}
	c.Flush(call(t)) // writes what the background writer has not
	require.Equal(t, 1, len(warnings()), "one warning per failed write")
	assert.Contains(t, attr(warnings()[0], "err"), "--sessions-max-bytes")
	assert.Empty(t, attr(warnings()[0], "repeats"), "the first warning counts nothing before it")

	later.Store(int64(logEvery + time.Second))
	require.NoError(t, c.SetLatestTask(t.Context(), "caller-last", "t_last"))
	c.Flush(call(t))
	w := warnings()
	require.Equal(t, 2, len(w), "no warning a minute later")
	assert.Equal(t, "t_last", attr(w[1], "task"))
	assert.Equal(t, fmt.Sprint(tasks-1), attr(w[1], "repeats"), "the ids not stored since the first warning")
}

// attr is the value of r's attribute key as text, "" if it has none.
func attr(r slog.Record, key string) string {
	v := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value.String()
			return false
		}
		return true
	})
	return v
}
