package test

import (
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A session taken up by a restarted gateway (its Mcp-Session-Id, no new initialize) is the
// same holder as before: its client name is kept in NATS with the session, so its task records
// and its lease name one holder, and select_device again is no stranger's request.
func TestSessionHolderSurvivesGatewayRestart(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := f.ClientWithProtocol("s8", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION) // a revision with sessions
	farmtest.MustCall(t, c, "select_device", args("serial", serial))
	farmtest.MustCall(t, c, "tap_xy", args("x", 0.5, "y", 0.5))
	first := latestTask(t, c, "")
	before := first.Holder
	session := c.GetSessionId()
	require.NotEmpty(t, session)
	require.Equal(t, "anonymous (s8) session "+broker.SessionTag(session), before)

	f.StopGateway()
	f.StartGateway()
	tr, err := transport.NewStreamableHTTP(f.Gateway().MCPURL, transport.WithSession(session))
	require.NoError(t, err)
	resumed := client.NewClient(tr, client.WithSession())
	require.NoError(t, resumed.Start(t.Context()))
	t.Cleanup(func() { _ = resumed.Close() })

	farmtest.MustCall(t, resumed, "tap_xy", args("x", 0.5, "y", 0.5))
	after := latestTask(t, resumed, first.TaskID).Holder
	assert.Equal(t, before, after, "the holder of the session's task records across the restart")
	leases, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	require.Len(t, leases, 1)
	assert.Equal(t, before, leases[0].Holder.String(), "the lease's holder and the records' agree")
	contains(t, farmtest.Text(farmtest.MustCall(t, resumed, "select_device", args("serial", serial))), "already selected in this session")
}

type latestRecord struct {
	TaskID string `json:"taskId"`
	Tool   string `json:"tool"`
	Holder string `json:"holder"`
}

// latestTask waits for the session's latest task (get_latest_task) to be a tap_xy other than
// the task not, and returns its record.
func latestTask(t *testing.T, c *client.Client, not string) latestRecord {
	t.Helper()
	var rec latestRecord
	farmtest.Eventually(t, 10*time.Second, func() bool {
		res, err := farmtest.TryCall(t, c, "get_latest_task", args("anyTool", true))
		if err != nil || res.IsError {
			return false
		}
		rec = latestRecord{}
		farmtest.Structured(t, res, &rec)
		return rec.Tool == "tap_xy" && rec.TaskID != not
	}, "the session's latest task is its tap")
	return rec
}
