package mcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// QA: a client that initialized as "x)\nalice (console<script>alert(1)</script>" showed in
// corral leases as a second row held by "alice (console…)", and in busy refusals to others as
// that; one named with 20,000 characters cut other callers' list_available_devices to one
// device a page. Holders carry the client's name as a label: no brackets, no line breaks, at
// most 64 runes; the session's entry keeps that label, so a gateway taking the session up
// derives the same holder (the session still holds its device).
func TestClientNamesAreCleanedInHolders(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Quiet: true})
	devs := f.Devices()
	require.Len(t, devs, 3)
	s0, s1 := devs[0].Serial, devs[1].Serial

	forged := callerClient(t, f, "protocol session", "x)\nalice (console<script>alert(1)</script>")
	long := callerClient(t, f, "Corral-Caller", strings.Repeat("ab", 10000))
	observer := f.Client("observer")
	shownForged := "anonymous (x alice console script alert 1 /script) session "
	shownLong := "anonymous (" + strings.Repeat("ab", 31) + "a…) session "

	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, forged, "acquire_device", map[string]any{"serial": s0}), &held)
	assert.Equal(t, shownForged+broker.SessionTag(forged.GetSessionId()), held.Lease.Holder)
	farmtest.Structured(t, farmtest.MustCall(t, long, "acquire_device", map[string]any{"serial": s1}), &held)
	assert.True(t, strings.HasPrefix(held.Lease.Holder, shownLong), "the long name's holder: %.200q", held.Lease.Holder)

	var leases mcp.LeasesResult
	farmtest.Structured(t, farmtest.MustCall(t, observer, "list_leases", nil), &leases)
	require.Len(t, leases.Leases, 2)
	for _, l := range leases.Leases {
		want := map[string]string{s0: shownForged, s1: shownLong}[l.Serial]
		assert.True(t, strings.HasPrefix(l.Holder, want), "%s's holder in list_leases: %.200q, want %q…", l.Serial, l.Holder, want)
		assert.NotContains(t, l.Holder, "\n")
	}

	busy := farmtest.Text(farmtest.Call(t, observer, "acquire_device", map[string]any{"serial": s0}))
	assert.Contains(t, busy, shownForged)
	assert.NotContains(t, busy, "alice (console")
	assert.NotContains(t, busy, "\n"+"alice")

	farmtest.Eventually(t, 20*time.Second, func() bool {
		var list mcp.DeviceListResult
		farmtest.Structured(t, farmtest.MustCall(t, observer, "list_available_devices", nil), &list)
		for _, d := range list.Devices {
			if d.Serial == s1 && !strings.HasPrefix(d.Holder, shownLong) {
				return false
			}
		}
		return len(list.Devices) == 3 && list.NextCursor == ""
	}, "every device on one page of list_available_devices, %s held by %s…", s1, shownLong)

	// The session's entry keeps the label; a gateway taking the session up reads it back.
	session := forged.GetSessionId()
	require.NotEmpty(t, session)
	farmtest.Eventually(t, 10*time.Second, func() bool {
		sd, _ := f.Gateway().Client.SessionDevice(t.Context(), broker.PrincipalSessionKey(broker.Anonymous, session))
		return sd.Client == "x alice console script alert 1 /script"
	}, "the session's entry keeping the client's label")
	f.StopGateway()
	f.StartGateway()
	tr, err := transport.NewStreamableHTTP(f.Gateway().MCPURL, transport.WithSession(session))
	require.NoError(t, err)
	resumed := client.NewClient(tr, client.WithSession())
	require.NoError(t, resumed.Start(t.Context()))
	t.Cleanup(func() { _ = resumed.Close() })
	again := farmtest.Call(t, resumed, "acquire_device", map[string]any{"serial": s0})
	require.True(t, again.IsError, farmtest.Text(again))
	assert.Contains(t, farmtest.Text(again), "You hold it", "the session taken up is another holder")
}
