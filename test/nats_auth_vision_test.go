package test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/vision"
)

// The vision NATS user serves vision requests in the workers' queue group and does nothing else:
// it cannot serve or watch node subjects, read sessions or the registry, publish events or
// requests, or see vision requests outside the queue group. A node's user asks it.
func TestVisionNATSRole(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Auth: true})
	worker := broker.UserName(broker.RoleVision, "")
	for _, a := range []struct {
		name string
		args []string
	}{
		{"serve a node's tasks", []string{"reply", "corral.v1.node.n1.task", "stolen", "--queue", broker.VisionQueue, "--count", "1"}},
		{"watch node requests", []string{"sub", "corral.v1.node.>", "--count", "1"}},
		{"read a session", []string{"kv", "get", broker.SessionBucket, "s_victim", "--raw"}},
		{"read the registry", []string{"kv", "get", broker.RegistryBucket, broker.RegistryKey("n1", "n1-p1"), "--raw"}},
		{"request a node", []string{"req", "corral.v1.node.n1.leases", `{"v":1}`}},
		{"publish an event", []string{"req", "corral.v1.events.device.n1.n1-p1.online", "{}"}},
		{"request vision itself", []string{"req", vision.Prefix + "." + vision.EndpointOCR, `{"v":1}`}},
		// natscli's reply uses its own queue group: only corral-vision's may serve.
		{"serve vision outside its queue group", []string{"reply", vision.Prefix + "." + vision.EndpointOCR, "x", "--count", "1"}},
		{"see every vision request", []string{"sub", vision.Prefix + ".>", "--count", "1"}},
	} {
		out, _ := natsAs(t, f, worker, a.args...)
		assert.True(t, refused(out), "the vision user could %s:\n%s", a.name, out)
	}

	// A node's user asks whether a worker listens (micro's PING): none yet, told at once.
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	client := vision.NewClient(connectAs(t, f, broker.UserName(broker.RoleNode, "n1")), 10*time.Second)
	start := time.Now()
	require.ErrorIs(t, client.Ping(ctx), vision.ErrNoWorker)
	assert.Less(t, time.Since(start), 5*time.Second, "the ping waited for an answer that cannot come")

	// In its queue group it serves; a node's user asks (vision.Client) and gets the answer.
	cmd := exec.CommandContext(ctx, tool(t, "nats"), "--context", f.Context(worker), "reply",
		vision.Prefix+"."+vision.EndpointOCR, `{"v":1,"width":7,"height":3,"lines":[]}`, "--queue", vision.QueueGroup, "--count", "1")
	home := t.TempDir()
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "PATH=/usr/bin:/bin"}
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var res vision.OCRResult
	var err error
	until(t, func() bool {
		res, err = client.OCR(ctx, vision.OCRRequest{V: vision.WireVersion, Image: []byte("png")})
		return err == nil || !assert.ErrorIs(t, err, vision.ErrNoWorker, "before the worker subscribed")
	}, "the node's request answered by the vision user")
	require.NoError(t, err)
	assert.Equal(t, 7, res.Width)

	// Gateways and operators do not call workers (only nodes' tools do).
	for _, who := range []string{broker.UserName(broker.RoleGateway, ""), broker.UserName(broker.RoleOperator, "")} {
		out, _ := natsAs(t, f, who, "req", vision.Prefix+"."+vision.EndpointOCR, `{"v":1}`)
		assert.True(t, refused(out), "%s could request a vision worker:\n%s", who, out)
	}
}
