package nodes

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/logtest"
)

// stopMirror is a mirror of node n1 on a fresh farm whose event stream holds one message, its
// log and metrics kept.
func stopMirror(t *testing.T) (context.Context, *broker.Stores, *natsMirror, *logtest.Buffer, *prometheus.Registry) {
	t.Helper()
	ctx, stores, _ := mirrorStores(t)
	logs := &logtest.Buffer{}
	m := newNATSMirror(stores, "n1", slog.New(slog.NewTextHandler(logs, nil)))
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.health)
	m.Event(broker.Event{V: broker.WireVersion, Kind: "node", Node: "n1", What: "up", At: time.Now()})
	_, failed := m.flush(ctx, false)
	require.False(t, failed)
	return ctx, stores, m, logs, reg
}

func stopRecord(id string) broker.TaskResult {
	return broker.TaskResult{V: broker.WireVersion, ID: id, Serial: "p1", Node: "n1", Tool: "home", Outcome: broker.OutcomeFailed, Code: broker.CodeInterrupted}
}

// A node that stops while NATS takes no writes (its disk full) tries within its stop budget,
// then says in one ERROR line what it drops, naming the tasks whose records are lost, and
// counts them: they were dropped without a word.
func TestStopTellsWhatNATSDidNotTake(t *testing.T) {
	_, _, m, logs, reg := stopMirror(t)
	fillEvents(t, m.stores, true)
	life, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); m.run(life) }()
	m.TaskRecord(stopRecord("t_b"))
	m.TaskRecord(stopRecord("t_a"))
	m.Event(broker.Event{V: broker.WireVersion, Kind: "node", Node: "n1", What: "down", At: time.Now()})
	stopped := time.Now()
	stop()
	select {
	case <-done:
	case <-time.After(stopFlushWait + 5*time.Second):
		t.Fatal("the stop's flush is not bounded")
	}
	assert.GreaterOrEqual(t, time.Since(stopped), stopFlushWait-time.Second, "gave up before its stop budget")
	assert.Equal(t, 1, strings.Count(logs.String(), "the node stops and NATS took no write"), logs.String())
	line := logs.Line("the node stops and NATS took no write")
	assert.Contains(t, line, "level=ERROR")
	assert.Contains(t, line, "task_records=2 tasks=t_a,t_b events=1")
	assert.Contains(t, line, "corral_node_store_writes_dropped_total")
	assert.Equal(t, 3.0, gathered(t, reg, "corral_node_store_writes_dropped_total"))
}

// A stop's write that NATS refuses is tried again while the stop's budget lasts: a stream back
// meanwhile (a leader elected, space freed) gets the record, and nothing is dropped.
func TestStopRetriesTheWritesNATSRefused(t *testing.T) {
	ctx, stores, m, logs, reg := stopMirror(t)
	fillEvents(t, stores, true)
	m.TaskRecord(stopRecord("t_late"))
	done := make(chan struct{})
	go func() { defer close(done); m.flushAtStop(time.Minute) }()
	require.Eventually(t, func() bool {
		return gathered(t, reg, "corral_node_store_writes_failed_total") >= 1
	}, 10*time.Second, 5*time.Millisecond, "the stop's first write refused")
	fillEvents(t, stores, false)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the stop's flush did not end once NATS took its writes")
	}
	_, err := stores.Events.GetLastMsgForSubject(ctx, m.taskRecordSubject("t_late"))
	require.NoError(t, err, "the record is not stored:\n%s", logs)
	assert.Equal(t, 0.0, gathered(t, reg, "corral_node_store_writes_dropped_total"))
	assert.NotContains(t, logs.String(), "the node stops and NATS took no write")
}
