package test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// violations collects the permission violations NATS reports to a connection, in order.
type violations struct {
	mu   sync.Mutex
	errs []string
}

func (v *violations) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.errs = append(v.errs, err.Error())
}

// refusedPublish says whether NATS refused a publish to subject.
func (v *violations) refusedPublish(subject string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, e := range v.errs {
		if strings.Contains(e, "Permissions Violation for Publish to \""+subject+"\"") {
			return true
		}
	}
	return false
}

// Issue 15, node-scoped events: every subject a node publishes names it, and its NATS user may
// publish only under its own id. As the node user of n1, a task record, device or lease event,
// or progress for n2, or on a subject with no node token (the layout before), is refused by
// the server; a forged record never shows up in get_task_result or get_latest_task; n1's own
// records, events and progress still flow.
func TestNATSNodeScopedEvents(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Auth: true})
	agent := f.Client("alice")
	record := func(c string, extra ...any) (mcp.TaskRecordResult, string) {
		t.Helper()
		res := farmtest.Call(t, agent, c, args(extra...))
		var rec mcp.TaskRecordResult
		if !res.IsError {
			farmtest.Structured(t, res, &rec)
		}
		return rec, farmtest.Text(res)
	}

	// A task of alice's on n2's device: the record n1 will try to forge.
	farmtest.MustCall(t, agent, "tap_xy", args("serial", "n2-p1", "x", 0.5, "y", 0.5))
	real, _ := record("get_latest_task", "anyTool", true)
	require.Equal(t, "n2", real.Node)
	require.Equal(t, broker.OutcomeSucceeded, real.Status)
	fresh := broker.NewTaskID() // an id no node ran

	n1 := connectAs(t, f, broker.UserName(broker.RoleNode, "n1"))
	seen := &violations{}
	n1.SetErrorHandler(seen.handler)
	forge := func(node, id string) []byte {
		b, _ := json.Marshal(broker.TaskResult{V: broker.WireVersion, ID: id, Serial: "n2-p1", Node: node, Tool: "tap_xy",
			Outcome: broker.OutcomeFailed, Error: "forged by n1", Finished: time.Now()})
		return b
	}
	event, _ := json.Marshal(broker.Event{V: broker.WireVersion, Kind: "device", Serial: "n2-p1", Node: "n2", What: broker.StateOffline,
		Reason: "forged by n1", At: time.Now()})
	progress, _ := json.Marshal(broker.Progress{TaskID: real.TaskID, Progress: 1, Total: 1, Message: "forged by n1"})
	attacks := []struct{ name, subject string }{
		{"n2's record of its task", fmt.Sprintf(broker.EventTaskT, "n2", real.TaskID)},
		{"a record for n2", fmt.Sprintf(broker.EventTaskT, "n2", fresh)},
		{"a record without a node", broker.Prefix + ".events.task." + fresh},
		{"a device event for n2", fmt.Sprintf(broker.EventDevT, "n2", "n2-p1", broker.StateOffline)},
		{"a device event without a node", broker.Prefix + ".events.device.n2-p1." + broker.StateOffline},
		{"a lease event for n2", fmt.Sprintf(broker.EventLeaseT, "n2", "n2-p1", "revoked")},
		{"a lease event without a node", broker.Prefix + ".events.lease.n2-p1.revoked"},
		{"a node event for n2", fmt.Sprintf(broker.EventNodeT, "n2", "down")},
		{"progress for n2", fmt.Sprintf(broker.ProgressT, "n2", real.TaskID)},
		{"progress without a node", broker.Prefix + ".progress." + real.TaskID},
	}
	// n1's own: allowed. A refusal of one of them would be reported before those of the attacks
	// that follow it, so that waiting for the attacks' refusals shows whether these were.
	own := []string{
		fmt.Sprintf(broker.EventTaskT, "n1", "t_n1own"),
		fmt.Sprintf(broker.EventDevT, "n1", "n1-p1", broker.StateOnline),
		fmt.Sprintf(broker.EventLeaseT, "n1", "n1-p1", "released"),
		fmt.Sprintf(broker.ProgressT, "n1", "t_n1own"),
	}
	for _, s := range own {
		data := event
		if strings.Contains(s, ".task.") {
			data, _ = json.Marshal(broker.TaskResult{V: broker.WireVersion, ID: "t_n1own", Serial: "n1-p1", Node: "n1", Tool: "home",
				Outcome: broker.OutcomeSucceeded, Finished: time.Now()})
		}
		require.NoError(t, n1.Publish(s, data))
	}
	for _, a := range attacks {
		data := event
		switch {
		case strings.Contains(a.subject, ".task."):
			data = forge("n2", strings.TrimPrefix(a.subject[strings.LastIndex(a.subject, "."):], "."))
		case strings.Contains(a.subject, ".progress."):
			data = progress
		}
		require.NoError(t, n1.Publish(a.subject, data))
	}
	require.NoError(t, n1.Flush())
	allRefused := func() bool {
		for _, a := range attacks {
			if !seen.refusedPublish(a.subject) {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(10 * time.Second); !allRefused() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // polling the refusals NATS reports, with a deadline
	}
	for _, a := range attacks {
		assert.True(t, seen.refusedPublish(a.subject), "n1 could publish %s (%s)", a.name, a.subject)
	}
	for _, s := range own {
		assert.False(t, seen.refusedPublish(s), "n1 may not publish its own %s", s)
	}

	// Nothing forged reached the stream: get_task_result shows n2's record, and knows no
	// record of the fresh id.
	got, text := record("get_task_result", "task_id", real.TaskID)
	assert.Equal(t, real, got, "get_task_result of n2's task: %s", text)
	_, text = record("get_task_result", "task_id", fresh)
	assert.Contains(t, text, "no record of task "+fresh)
	assert.NotContains(t, text, "forged")
	latest, _ := record("get_latest_task", "anyTool", true)
	assert.Equal(t, real, latest)
	h, err := f.Gateway().Client.TaskRecord(t.Context(), "t_n1own")
	require.NoError(t, err, "n1's own record")
	assert.Equal(t, "n1", h.Node)

	// n1 may write records under its own name only; one of n2's task, under n1's name, makes
	// get_task_result refuse to choose rather than show it.
	require.NoError(t, n1.Publish(fmt.Sprintf(broker.EventTaskT, "n1", real.TaskID), forge("n1", real.TaskID)))
	require.NoError(t, n1.Flush())
	farmtest.Eventually(t, 10*time.Second, func() bool {
		_, text = record("get_task_result", "task_id", real.TaskID)
		return strings.Contains(text, "records from two nodes, n2 and n1")
	}, "get_task_result refusing a task with records from two nodes: %s", text)
	assert.NotContains(t, text, "forged by n1")

	// The nodes' own traffic flows: n1's device events and task records, and progress of a
	// long call on n1 reaching its caller through the gateway.
	var progressed []broker.Progress
	var mu sync.Mutex
	res, err := f.Gateway().Client.Run(t.Context(), broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: "n1-p1",
		Tool: "sleep", Args: json.RawMessage(`{"seconds":0.6}`), Progress: true, Holder: broker.Holder{Principal: "alice"}},
		func(p broker.Progress) { mu.Lock(); progressed = append(progressed, p); mu.Unlock() })
	require.NoError(t, err)
	require.Equal(t, broker.OutcomeSucceeded, res.Outcome, "%+v", res)
	mu.Lock()
	assert.NotEmpty(t, progressed, "no progress of n1's sleep reached the gateway")
	mu.Unlock()
	rec, err := f.Gateway().Client.TaskRecord(t.Context(), res.ID)
	require.NoError(t, err)
	assert.Equal(t, "n1", rec.Node)
	stores, err := broker.EnsureStores(t.Context(), connectAs(t, f, broker.UserName(broker.RoleOperator, "")), broker.StoreOptions{CreateOnly: true})
	require.NoError(t, err)
	for _, s := range []string{fmt.Sprintf(broker.EventDevT, "n1", "n1-p1", broker.StateOnline), fmt.Sprintf(broker.EventNodeT, "n1", "up")} {
		_, err := stores.Events.GetLastMsgForSubject(t.Context(), s)
		assert.NoError(t, err, "n1's %s", s)
	}
	for _, a := range attacks[3:8] {
		_, err := stores.Events.GetLastMsgForSubject(t.Context(), a.subject)
		assert.Error(t, err, "%s in the stream", a.name)
	}
}
