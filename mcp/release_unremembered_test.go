package mcp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// release_device by serial of a device the caller holds by a lease it does not remember (a
// connection without protocol session: acquire_device's lease is not kept for it) said "you
// hold no lease of X … you hold leases of X". It says the caller holds it and to pass its
// handle, once (it ended with a second "pass the handle"); a serial no device has is an
// unknown device, not a lease the caller lacks.
func TestReleaseBySerialOfAnUnrememberedLeaseSaysItIsHeld(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 2, Quiet: true})
	c := f.ClientWithProtocol("qa", "2026-07-28") // no protocol session
	a, b := "n1-p1", "n1-p2"
	farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": a})
	farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": b})

	res := farmtest.Call(t, c, "release_device", map[string]any{"serial": a})
	require.True(t, res.IsError, "released %s without its lease: %s", a, farmtest.Text(res))
	text := farmtest.Text(res)
	assert.Contains(t, text, "hold a lease of "+a+", but without a session a lease acquire_device took is not remembered: pass its handle as lease")
	assert.NotContains(t, text, "no lease of "+a)
	assert.Contains(t, text, "you also hold leases of "+b)
	assert.Equal(t, 1, strings.Count(text, "pass its handle")+strings.Count(text, "pass the handle"), "what to pass is said once: %s", text)

	res = farmtest.Call(t, c, "release_device", map[string]any{"serial": "nosuch"})
	require.True(t, res.IsError)
	assert.Contains(t, farmtest.Text(res), `unknown device "nosuch": no device in the farm has this serial`)
	assert.NotContains(t, farmtest.Text(res), "no lease of")
}
