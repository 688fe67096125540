package mcp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// release_device by serial of a device another session of the caller's principal holds (a
// second corral call: each process is a caller of its own) said "you hold no lease of X
// (released, expired, or another holder's …)" and ended with a second "pass the handle". It
// says, as the busy refusal does, that another session of the principal holds it, and once
// how to give it back: its lease handle. The refusal changes nothing.
func TestReleaseOfAnotherSessionsDeviceSaysWhoseItIs(t *testing.T) {
	for _, kind := range []string{"protocol session", "Corral-Caller"} {
		t.Run(kind, func(t *testing.T) {
			f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
			first, second := callerClient(t, f, kind, "corral-cli"), callerClient(t, f, kind, "corral-cli")
			a, b := f.Devices()[0].Serial, f.Devices()[1].Serial
			var held mcp.AcquireResult
			farmtest.Structured(t, farmtest.MustCall(t, first, "acquire_device", map[string]any{"serial": a}), &held)
			farmtest.MustCall(t, second, "acquire_device", map[string]any{"serial": b})

			res := farmtest.Call(t, second, "release_device", map[string]any{"serial": a})
			text := farmtest.Text(res)
			require.True(t, res.IsError, "released another session's device: %s", text)
			assert.Contains(t, text, "lease is required: "+a+" is held by "+held.Lease.Holder+". That is another session of ")
			assert.Contains(t, text, ": if its lease is yours, pass its handle as lease (corral call: export CORRAL_LEASE=<handle>).")
			assert.Contains(t, text, " You hold leases of "+b+" (release_device {} gives back ")
			assert.NotContains(t, text, "no lease of")
			assert.Equal(t, 1, strings.Count(text, "pass its handle")+strings.Count(text, "pass the handle"), "what to pass is said once: %s", text)

			farmtest.MustCall(t, first, "release_device", map[string]any{"serial": a, "lease": held.Lease.Handle})
		})
	}
}
