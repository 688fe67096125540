package broker_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// Callers at the hub of a node at a cut-off edge site are told the site is cut off and that
// its leases are still held there (docs/operations.md, During a cut), not that the node is
// lost and its leases revoked: a call running when the link is cut, a release, a lease
// holder's next call once the hub has marked the device offline. The hub's list of leases
// keeps the other site's and names the node it could not ask.
func TestHubCallsToACutOffSite(t *testing.T) {
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"paris": {"n1"}, "lyon": {"n2"}}, PhonesPerNode: 3})
	sites := h.Gateway().Sites
	farmtest.Eventually(t, waitLong, func() bool {
		site, ok := sites.SiteOf("n1")
		return ok && site == "paris"
	}, "the hub's site watch knows n1 is at paris")
	hub := hubClient(t, h, broker.ClientOptions{Sites: sites})
	// This one never declares a node lost: it sees only the cut, as a gateway does in the
	// seconds before the node's heartbeats are missed.
	patient := hubClient(t, h, broker.ClientOptions{Sites: sites, LostAfter: time.Hour})

	alice := broker.Holder{Principal: "alice"}
	held, err := hub.Acquire(t.Context(), broker.AcquireRequest{V: broker.WireVersion, Serial: "n1-p1", Holder: alice})
	require.NoError(t, err)
	require.True(t, held.OK, "%+v", held)
	atLyon, err := hub.Acquire(t.Context(), broker.AcquireRequest{V: broker.WireVersion, Serial: "n2-p1", Holder: alice})
	require.NoError(t, err)
	require.True(t, atLyon.OK, "%+v", atLyon)

	running := make(chan error, 1)
	id := broker.NewTaskID()
	// The sleep runs once its driver reports (each second), not once the registry shows it: a
	// node that was silent a moment (at load ~25, -race) asks the caller first, the registry
	// showing the task meanwhile; cut then, it was refused caller_gone, not run and aborted.
	slept := make(chan struct{})
	var sleeping sync.Once
	go func() {
		_, err := hub.Run(t.Context(), broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: "n1-p2", Tool: "sleep",
			Args: json.RawMessage(`{"seconds":60}`), Holder: alice, Progress: true}, func(p broker.Progress) {
			if strings.HasPrefix(p.Message, "slept") {
				sleeping.Do(func() { close(slept) })
			}
		})
		running <- err
	}()
	select {
	case <-slept:
	case err := <-running:
		t.Fatalf("the sleep at paris ended before the cut: %v", err)
	case <-time.After(waitLong):
		t.Fatalf("the sleep at paris reported no progress within %s", waitLong)
	}

	h.Sites["paris"].Link.Cut()
	var callErr error
	select {
	case callErr = <-running:
	case <-time.After(20 * time.Second):
		t.Fatal("the call running at paris did not end when its link was cut")
	}
	siteCutOff(t, callErr, "during the call", "its leases are still held at the site; the task goes on there only if the link is back within 3 s")
	// At paris the cut looks like the caller's gateway gone: its node aborts the call, as the
	// error above says (docs/operations.md, During a cut).
	atParis := h.Sites["paris"].Gateway().Client
	var record broker.TaskResult
	farmtest.Eventually(t, waitLong, func() bool {
		record, _ = atParis.TaskRecord(t.Context(), id)
		return record.Outcome == broker.OutcomeAborted && record.Code == broker.CodeCallerGone
	}, "paris's node aborts the cut-off call as its caller gone (record: %+v)", &record)

	farmtest.Eventually(t, waitLong, func() bool { return !sites.Up("paris") }, "the hub notices paris's cut")
	leases, err := patient.Leases(t.Context())
	var partial *broker.PartialError
	require.ErrorAs(t, err, &partial)
	require.Contains(t, partial.Missing, "n1")
	siteCutOff(t, partial.Missing["n1"], "its leases are still held at the site")
	require.Len(t, leases, 1, "%+v", leases)
	require.Equal(t, "n2-p1", leases[0].Serial, "lyon's lease listed while paris is cut off")

	_, err = hub.Release(t.Context(), broker.ReleaseRequest{V: broker.WireVersion, Serial: "n1-p1", Handle: held.Lease.Handle, By: alice.String()})
	siteCutOff(t, err, "its leases are still held at the site")

	farmtest.Eventually(t, waitLong, func() bool {
		d, _ := hub.Device("n1-p1")
		return d.State == broker.StateOffline
	}, "paris's devices offline at the hub")
	res, err := hub.Run(t.Context(), broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: "n1-p1", Tool: "sleep",
		Args: json.RawMessage(`{"seconds":0.1}`), Lease: held.Lease.Handle, Holder: alice}, nil)
	require.NoError(t, err)
	require.Equal(t, broker.OutcomeRefused, res.Outcome, "%+v", res)
	for _, want := range []string{"site paris", "unreachable from the hub", "its lease, if any, is still held at the site", "corral_site_up"} {
		require.Contains(t, res.Error, want)
	}
}

// siteCutOff checks that err says the call's node is at paris, cut off, and the words given.
func siteCutOff(t *testing.T, err error, words ...string) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, broker.ErrSiteCutOff)
	require.ErrorIs(t, err, broker.ErrNodeLost, "callers that stop on a lost node stop on a cut-off site too")
	msg := err.Error()
	for _, want := range append([]string{"node n1 at site paris", "the site's link is down", "corral_site_up"}, words...) {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "revoked") {
		t.Errorf("the error says leases were revoked, which the site did not do: %s", msg)
	}
}

// hubClient is a farm client at the hub, as its gateway connects, with opts.
func hubClient(t *testing.T, h *farmtest.Hub, opts broker.ClientOptions) *broker.Client {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	nc, err := broker.Connect(h.Connect(broker.UserName(broker.RoleGateway, ""), "hub-client"), log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{CreateOnly: true})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	opts.Log = log
	c, err := broker.NewClient(ctx, nc, stores, opts)
	require.NoError(t, err)
	require.NoError(t, c.WaitReady(ctx))
	return c
}
