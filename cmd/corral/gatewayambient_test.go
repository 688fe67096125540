package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// With CORRAL_GATEWAY exported, corral tasks and release --force take the NATS context the user
// set (--nats-context or NATS_CONTEXT) and ignore the gateway: they refused, telling the user
// to set the very context that was set. A --gateway typed on the command line is still refused,
// and without a context set the refusal says where the gateway came from.
func TestNATSContextSetWinsOverAnExportedGateway(t *testing.T) {
	noNATSSettings(t)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Auth: true})
	serial := f.Devices()[0].Serial
	farmtest.MustCall(t, f.Client("agent"), "acquire_device", map[string]any{"serial": serial})
	admin, operator := f.Context(broker.UserName(broker.RoleAdmin, "")), f.Context(broker.UserName(broker.RoleOperator, ""))
	const gw = "http://127.0.0.1:1/mcp" // nothing listens: a command that used it would fail
	t.Setenv("CORRAL_GATEWAY", gw)

	code, out, errOut := corralMain(t, "tasks", "--nats-context", operator, "--timeout", "20s")
	assert.Equal(t, 0, code, "tasks --nats-context with CORRAL_GATEWAY exported:\n%s%s", out, errOut)

	t.Setenv("NATS_CONTEXT", admin)
	code, out, errOut = corralMain(t, "tasks", "--timeout", "20s")
	assert.Equal(t, 0, code, "tasks with NATS_CONTEXT and CORRAL_GATEWAY exported:\n%s%s", out, errOut)
	code, out, errOut = corralMain(t, "release", serial, "--force", "--timeout", "20s")
	require.Equal(t, 0, code, "release --force with NATS_CONTEXT and CORRAL_GATEWAY exported:\n%s%s", out, errOut)
	assert.Contains(t, out, "Revoked the lease of "+serial)

	// --gateway typed on the command line is what the user asked for: refused, as before.
	code, _, errOut = corralMain(t, "tasks", "--gateway", gw)
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, "instead of --gateway "+gw+", pass --nats-context")

	// No context set: CORRAL_GATEWAY is refused, named as where --gateway came from.
	t.Setenv("NATS_CONTEXT", "")
	code, _, errOut = corralMain(t, "release", serial, "--force")
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, `(--gateway came from CORRAL_GATEWAY="`+gw+`", not the command line)`)
}
