package nodes_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/vision"
)

// The vision client a node makes itself (no Ops given) logs to the node's log: a worker that
// hangs with a tool's OCR is said once at WARN, naming the worker and the node. The workers are
// plain subscribers: a hung worker is exactly one that is subscribed and answers nothing.
func TestNodesVisionClientWarnsInTheNodesLog(t *testing.T) {
	const node, serial = "n1", "n1-p1"
	r := newRestartRig(t, false)
	var logs logtest.Buffer
	r.log = slog.New(slog.NewTextHandler(&logs, nil))
	r.startNode(node, serial)
	r.waitDevice(serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })

	connect := func() *nats.Conn {
		nc, err := nats.Connect(r.url)
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		return nc
	}
	// H answers the ping until it takes an OCR, then nothing; it alone is in the OCR queue group.
	h := connect()
	var hung atomic.Bool
	_, err := h.Subscribe(vision.PingSubject, func(m *nats.Msg) {
		if !hung.Load() {
			_ = m.Respond([]byte(`{"id":"H"}`))
		}
	})
	require.NoError(t, err)
	_, err = h.QueueSubscribe(vision.Prefix+"."+vision.EndpointOCR, vision.QueueGroup, func(*nats.Msg) { hung.Store(true) })
	require.NoError(t, err)
	_, err = h.QueueSubscribe(vision.DirectSubject("H", ">"), vision.QueueGroup, func(*nats.Msg) {})
	require.NoError(t, err)
	require.NoError(t, h.Flush())
	// A answers the ping, holds nothing, and reads no text in the OCRs sent to it.
	a := connect()
	_, err = a.Subscribe(vision.PingSubject, func(m *nats.Msg) { _ = m.Respond([]byte(`{"id":"A"}`)) })
	require.NoError(t, err)
	_, err = a.QueueSubscribe(vision.DirectSubject("A", vision.EndpointHolds), vision.QueueGroup, func(m *nats.Msg) {
		_ = m.Respond([]byte(`{"v":1,"holds":false}`))
	})
	require.NoError(t, err)
	_, err = a.QueueSubscribe(vision.DirectSubject("A", vision.EndpointOCR), vision.QueueGroup, func(m *nats.Msg) {
		out := nats.NewMsg(m.Reply)
		out.Header.Set(vision.WorkerHeader, "A")
		out.Data = []byte(`{"v":1}`)
		_ = a.PublishMsg(out)
	})
	require.NoError(t, err)
	require.NoError(t, a.Flush())

	tapOCR := func() broker.TaskResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
		defer cancel()
		args, err := json.Marshal(map[string]any{"text": "shown nowhere"})
		require.NoError(t, err)
		res, err := r.gw.Run(ctx, broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: serial, Tool: "tap_ocr",
			Args: args, Holder: broker.Holder{Principal: "alice"}}, nil)
		require.NoError(t, err)
		return res
	}
	res := tapOCR()
	require.True(t, hung.Load(), "the hung worker never took the OCR")
	assert.Equal(t, broker.CodeNotFound, res.Code, "the OCR went to the live worker: %s", res.Error)
	const said = "a worker missed its ping while a call waited"
	warn := logs.Line(said)
	require.NotEmpty(t, warn, "the node's log lacks the vision client's warning:\n%s", logs.String())
	assert.Contains(t, warn, "level=WARN")
	assert.Contains(t, warn, "worker=H")
	assert.Contains(t, warn, "node="+node)

	// The next call passes the hung worker over, and it is not said again.
	assert.Equal(t, broker.CodeNotFound, tapOCR().Code)
	assert.Equal(t, 1, strings.Count(logs.String(), said), "said more than once")
}
