package broker

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A task record is believed only from the node its subject names: one naming another node, or
// a task with records from two nodes, is refused and says why; a record on an older Corral's
// subject (corral.v1.events.task.<id>) is still read. The history leaves out what TaskRecord
// refuses and keeps the older records.
func TestTaskRecordsFromTheirNode(t *testing.T) {
	s := openStores(t)
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour})
	publish := func(subject string, r TaskResult) {
		t.Helper()
		b, err := json.Marshal(r)
		require.NoError(t, err)
		_, err = s.JS.Publish(t.Context(), subject, b)
		require.NoError(t, err)
	}
	rec := func(id, node string) TaskResult {
		return TaskResult{V: WireVersion, ID: id, Serial: node + "-p1", Node: node, Tool: "tap_xy", Outcome: OutcomeSucceeded}
	}

	publish(fmt.Sprintf(EventTaskT, "n1", "t_own"), rec("t_own", "n1"))
	got, err := c.TaskRecord(call(t), "t_own")
	require.NoError(t, err)
	assert.Equal(t, rec("t_own", "n1"), got)

	// Under n1's name, a record that says n2 ran it.
	publish(fmt.Sprintf(EventTaskT, "n1", "t_claims_n2"), rec("t_claims_n2", "n2"))
	_, err = c.TaskRecord(call(t), "t_claims_n2")
	assert.ErrorContains(t, err, "not written by the node it names")

	// Under n1's name, a record of another task than the subject's.
	publish(fmt.Sprintf(EventTaskT, "n1", "t_other"), rec("t_own", "n1"))
	_, err = c.TaskRecord(call(t), "t_other")
	assert.ErrorContains(t, err, "not written by the node it names")

	// n2 ran t_both; n1 learnt its id and wrote a record of its own, before or after.
	for i, order := range [][]string{{"n2", "n1"}, {"n1", "n2"}} {
		id := fmt.Sprintf("t_both%d", i)
		for _, node := range order {
			publish(fmt.Sprintf(EventTaskT, node, id), rec(id, node))
		}
		_, err = c.TaskRecord(call(t), id)
		assert.ErrorContains(t, err, "records from two nodes, "+order[0]+" and "+order[1], id)
	}

	// A record of an older Corral.
	publish(fmt.Sprintf(legacyEventTaskT, "t_old"), rec("t_old", "n3"))
	got, err = c.TaskRecord(call(t), "t_old")
	require.NoError(t, err)
	assert.Equal(t, "n3", got.Node)

	h, err := s.TaskHistory(t.Context(), HistoryQuery{Limit: 100})
	require.NoError(t, err)
	var ids []string
	for _, r := range h.Tasks {
		ids = append(ids, r.ID+"@"+r.Node)
	}
	assert.Equal(t, []string{"t_old@n3", "t_both1@n2", "t_both1@n1", "t_both0@n1", "t_both0@n2", "t_own@n1"}, ids,
		"the history: every record its subject vouches for, newest first")
}

// The reaper handles a registry entry under an older Corral's key (the serial alone): the device
// goes offline under that key, its lease under the serial is deleted, and the offline event
// names the node.
func TestReapLegacyKeys(t *testing.T) {
	s := openStores(t)
	e := DeviceEntry{V: WireVersion, Serial: "old-1", Node: "n1", Platform: "android", State: StateLeased, Holder: "alice", Epoch: 3, Updated: time.Now()}
	b, err := json.Marshal(e)
	require.NoError(t, err)
	_, err = s.Registry.Put(t.Context(), Token(e.Serial), b)
	require.NoError(t, err)
	b, err = json.Marshal(Lease{V: WireVersion, Serial: e.Serial, Node: "n1", Holder: Holder{Principal: "alice"}, Epoch: 3})
	require.NoError(t, err)
	_, err = s.Leases.Put(t.Context(), Token(e.Serial), b)
	require.NoError(t, err)

	c := startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour})
	d, ok := c.Device("old-1")
	require.True(t, ok, "an older Corral's entry is read")
	require.Equal(t, StateLeased, d.State)
	c.nodeLost("n1", "boot-a")
	got, _ := getDevice(t, s, "old-1")
	assert.Equal(t, StateOffline, got.State)
	assert.False(t, hasLease(t, s, "old-1"))
	assert.EqualValues(t, 1, events(t, s, devOffline("n1", "old-1")))
}
