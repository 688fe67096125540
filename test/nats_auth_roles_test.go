package test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// natsAs runs natscli as a NATS user of the farm ("" : with no credentials) and returns what
// it printed and whether it failed. A command NATS allows answers within the timeout; one it
// refuses is told so ("Permissions Violation", or "Authorization Violation" without
// credentials).
func natsAs(t *testing.T, f *farmtest.Farm, user string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	base := []string{"--no-context", "--server", f.URL}
	if user != "" {
		base = []string{"--context", f.Context(user)}
	}
	cmd := exec.CommandContext(ctx, tool(t, "nats"), append(append(base, "--timeout", "3s"), args...)...)
	home := t.TempDir()
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// refused says whether natscli's output tells of NATS refusing the user.
func refused(out string) bool {
	return strings.Contains(out, "Permissions Violation") || strings.Contains(out, "Authorization Violation")
}

// Issue 15, item 1: without credentials, or with those of a role that may not, no one can
// revoke a lease, run a task as someone else, drain a node, watch node requests, read a
// session or write the registry. Only a gateway or an admin can publish a node request, so a
// node can trust the holder and `by` it carries.
func TestNATSRolesRefuseWhatTheyMayNot(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Auth: true})
	agent := f.Client("alice")
	lease := leaseOf(t, farmtest.MustCall(t, agent, "acquire_device", args("serial", "n1-p1")))

	// A session with a selected device and lease, as the gateway stores it.
	gw := connectAs(t, f, broker.UserName(broker.RoleGateway, ""))
	js, err := jetstream.New(gw)
	require.NoError(t, err)
	sessions, err := js.KeyValue(t.Context(), broker.SessionBucket)
	require.NoError(t, err)
	_, err = sessions.Put(t.Context(), "s_victim", []byte(`{"serial":"n1-p1","lease":"`+lease+`"}`))
	require.NoError(t, err)

	before, ok := f.Gateway().Client.Device("n1-p1")
	require.True(t, ok)
	forged := broker.NewTaskID()
	attacks := []struct {
		name string
		args []string
	}{
		{"force release", []string{"req", "corral.v1.node.n1.release", `{"v":1,"serial":"n1-p1","force":true,"by":"admin"}`}},
		{"task with a forged holder", []string{"req", "corral.v1.node.n1.task",
			`{"v":1,"id":"` + forged + `","serial":"n1-p1","tool":"app_uninstall","args":{"packageName":"com.example.app"},"holder":{"principal":"alice"}}`}},
		{"drain", []string{"req", "corral.v1.node.n1.drain", `{"v":1,"action":"drain","by":"mallory"}`}},
		{"watch node requests", []string{"sub", "corral.v1.node.>", "--count", "1"}},
		{"watch the screens", []string{"sub", "corral.v1.frames.>", "--count", "1"}},
		{"watch the gateway's replies", []string{"sub", broker.InboxPrefix("gateway") + ".>", "--count", "1"}},
		{"read a session", []string{"kv", "get", broker.SessionBucket, "s_victim", "--raw"}},
		{"write a registry entry", []string{"kv", "put", broker.RegistryBucket, broker.RegistryKey("n1", "n1-p1"),
			`{"v":1,"serial":"n1-p1","node":"n1","state":"online","tags":["everyone"]}`}},
		{"write a registry entry under the old key", []string{"kv", "put", broker.RegistryBucket, "n1-p1",
			`{"v":1,"serial":"n1-p1","node":"n1","state":"online","tags":["everyone"]}`}},
	}
	for _, who := range []string{"", broker.UserName(broker.RoleOperator, ""), broker.UserName(broker.RoleNode, "n2")} {
		for _, a := range attacks {
			out, _ := natsAs(t, f, who, a.args...)
			assert.True(t, refused(out), "%q could %s:\n%s", who, a.name, out)
		}
	}
	// A gateway requests node subjects but neither serves nor watches them.
	out, _ := natsAs(t, f, "gateway", "sub", "corral.v1.node.>", "--count", "1")
	assert.True(t, refused(out), "a gateway could watch node requests:\n%s", out)
	out, _ = natsAs(t, f, "gateway", "reply", "corral.v1.node.n1.task", "stolen", "--count", "1")
	assert.True(t, refused(out), "a gateway could serve a node's requests:\n%s", out)

	// Nothing changed: the lease is alice's, the node takes work, no forged task ran.
	held, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	require.Len(t, held, 1)
	assert.Equal(t, "n1-p1", held[0].Serial)
	farmtest.MustCall(t, agent, "tap_xy", args("serial", "n1-p1", "lease", lease, "x", 0.5, "y", 0.5))
	admin := connectAs(t, f, broker.UserName(broker.RoleAdmin, ""))
	st, err := broker.DrainNode(t.Context(), admin, "n1", broker.DrainRequest{Action: broker.DrainStatus})
	require.NoError(t, err)
	assert.False(t, st.Draining, "n1 was drained")
	_, err = f.Gateway().Client.TaskRecord(t.Context(), forged)
	assert.ErrorIs(t, err, broker.ErrNotFound, "the forged task ran")
	d, ok := f.Gateway().Client.Device("n1-p1")
	require.True(t, ok)
	assert.Equal(t, before.Tags, d.Tags, "the registry entry was rewritten")
}

// What each role is for still works with its credentials: operators see the farm, admins
// drain and release.
func TestNATSRolesAllowTheirWork(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Auth: true})
	op := broker.UserName(broker.RoleOperator, "")
	for _, c := range [][]string{
		{"micro", "ls"}, {"micro", "info", "corral-node"}, {"micro", "stats", "corral-node"},
		{"kv", "ls", broker.RegistryBucket}, {"kv", "get", broker.RegistryBucket, broker.RegistryKey("n1", "n1-p1"), "--raw"},
		{"stream", "info", broker.EventStream},
		{"sub", "corral.v1.events.>", "--stream", broker.EventStream, "--all", "-T", "--wait", "2s"},
		{"req", "corral.v1.node.n1.leases", "{}"},
	} {
		out, err := natsAs(t, f, op, c...)
		assert.NoError(t, err, "operator: nats %s:\n%s", strings.Join(c, " "), out)
	}
	out, err := natsAs(t, f, "admin", "req", "corral.v1.node.n1.drain", `{"v":1,"action":"status"}`)
	require.NoError(t, err, out)
	assert.Contains(t, out, `"draining":false`)
	out, err = runCorral(t, "drain", "n1", "--nats-context", f.Context("admin"), "--by", "ops")
	require.NoError(t, err, out)
	assert.Contains(t, out, "is draining")
	out, err = runCorral(t, "drain", "n1", "--undo", "--nats-context", f.Context(op))
	require.Error(t, err, "an operator undrained a node:\n%s", out)
	assert.Contains(t, out, "this NATS user's role may not do this")
	out, err = runCorral(t, "devices", "--nats-context", f.Context(op))
	require.NoError(t, err, out)
	assert.Contains(t, out, "n1-p1")
}

// Issue 15, item 1: a node writes its own registry entries only. Another node cannot write
// them, and an entry it writes about them under its own keys changes nothing: the gateway
// trusts an entry only under its own node's key, and keeps the device with the node it saw
// first while that node lives.
func TestNodeCannotWriteAnotherNodesDevices(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Auth: true})
	n2 := connectAs(t, f, broker.UserName(broker.RoleNode, "n2"))
	js, err := jetstream.New(n2)
	require.NoError(t, err)
	publish := func(key string, data []byte) error {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		_, err := js.Publish(ctx, "$KV."+broker.RegistryBucket+"."+key, data)
		return err
	}
	before, ok := f.Gateway().Client.Device("n1-p1")
	require.True(t, ok)
	entry := func(node string) []byte {
		b, _ := json.Marshal(broker.DeviceEntry{V: 1, Serial: "n1-p1", Platform: "android", Node: node, State: broker.StateOnline,
			Tags: []string{"everyone"}, Updated: time.Now().Add(time.Hour)})
		return b
	}
	for _, key := range []string{broker.RegistryKey("n1", "n1-p1"), "n1-p1"} {
		assert.Error(t, publish(key, entry("n1")), "node n2 wrote %s", key)
	}
	// Under its own prefix n2 may write; claiming to be n1 there, or claiming n1's device, wins nothing.
	require.NoError(t, publish(broker.RegistryKey("n2", "n1-p1"), entry("n1")))
	require.NoError(t, publish(broker.RegistryKey("n2", "n1-p1"), entry("n2")))
	// x1, written last, tells when the gateway has seen the writes before it.
	x1, _ := json.Marshal(broker.DeviceEntry{V: 1, Serial: "x1", Platform: "android", Node: "n2", State: broker.StateOnline})
	require.NoError(t, publish(broker.RegistryKey("n2", "x1"), x1))
	farmtest.Eventually(t, 5*time.Second, func() bool { _, ok := f.Gateway().Client.Device("x1"); return ok }, "n2's write seen")
	d, ok := f.Gateway().Client.Device("n1-p1")
	require.True(t, ok)
	assert.Equal(t, "n1", d.Node, "n2 took n1-p1 over")
	assert.Equal(t, before.Tags, d.Tags, "n2 widened n1-p1's tags")
}

// Nobody but the gateway reads the gateway's answers: an operator subscribing to inboxes, or
// to everything, is refused and sees no lease handle go by.
func TestOperatorSeesNoLeaseHandles(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Auth: true})
	nc := connectAs(t, f, broker.UserName(broker.RoleOperator, ""))
	var seen atomic.Int32
	for _, s := range []string{">", "_INBOX.>", broker.InboxPrefix("gateway") + ".>", "corral.v1.node.>"} {
		_, err := nc.Subscribe(s, func(*nats.Msg) { seen.Add(1) })
		require.NoError(t, err)
	}
	require.NoError(t, nc.Flush())
	farmtest.Eventually(t, 5*time.Second, func() bool { return errors.Is(nc.LastError(), nats.ErrPermissionViolation) },
		"the subscriptions refused")
	lease := leaseOf(t, farmtest.MustCall(t, f.Client("alice"), "acquire_device", args("serial", "n1-p1")))
	farmtest.MustCall(t, f.Client("alice"), "tap_xy", args("serial", "n1-p1", "lease", lease, "x", 0.5, "y", 0.5))
	require.NoError(t, nc.Flush())
	assert.Zero(t, seen.Load(), "the operator saw node requests or replies")
}

// Issue 17: a node publishes the live screens of its own devices only. Another node's frames
// under n1's subject are refused (the console would show them as n1's device); n1's own reach
// the gateway; an operator may not watch screens at all (they show people's data).
func TestNodeCannotPublishAnotherNodesFrames(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Auth: true})
	gw := connectAs(t, f, broker.UserName(broker.RoleGateway, ""))
	got := make(chan broker.Frame, 4)
	sub, err := gw.Subscribe(broker.Frames, func(m *nats.Msg) {
		if fr, err := broker.ParseFrame(m); err == nil {
			got <- fr
		}
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	require.NoError(t, gw.Flush())
	frame := func(node string) *nats.Msg {
		return broker.Frame{Node: node, Serial: "n1-p1", Seq: 1, Width: 1, Height: 1, Captured: time.Now(), JPEG: []byte("forged")}.Msg()
	}

	n2 := connectAs(t, f, broker.UserName(broker.RoleNode, "n2"))
	require.NoError(t, n2.PublishMsg(frame("n1")))
	require.NoError(t, n2.Flush())
	farmtest.Eventually(t, 5*time.Second, func() bool { return errors.Is(n2.LastError(), nats.ErrPermissionViolation) },
		"n2's publish under n1's subject refused")

	n1 := connectAs(t, f, broker.UserName(broker.RoleNode, "n1"))
	require.NoError(t, n1.PublishMsg(frame("n1")))
	select {
	case fr := <-got:
		assert.Equal(t, "n1", fr.Node)
		assert.Equal(t, "n1-p1", fr.Serial)
	case <-time.After(5 * time.Second):
		t.Fatal("n1's own frame never reached the gateway")
	}
	select {
	case fr := <-got:
		t.Fatalf("a second frame arrived (%s from node %s): n2's got through", fr.JPEG, fr.Node)
	default:
	}

	op := connectAs(t, f, broker.UserName(broker.RoleOperator, ""))
	_, err = op.Subscribe(broker.Frames, func(*nats.Msg) {})
	require.NoError(t, err)
	require.NoError(t, op.Flush())
	farmtest.Eventually(t, 5*time.Second, func() bool { return errors.Is(op.LastError(), nats.ErrPermissionViolation) },
		"the operator's subscription to frames refused")
}

// connectAs connects to the farm's NATS as one of its users.
func connectAs(t *testing.T, f *farmtest.Farm, user string) *nats.Conn {
	t.Helper()
	nc, err := broker.Connect(f.Connect(user, "test-"+user), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}
