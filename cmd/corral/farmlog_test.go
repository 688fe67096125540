package main

import (
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
)

// A command's farm client says nothing of a node lost meanwhile: corral leases or corral call
// run while a node was frozen printed the in-process front door's level=WARN msg="node lost"
// … boot="" in the user's terminal. With --log-level debug it still does.
func TestCommandFarmClientKeepsFarmNewsOutOfTheTerminal(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Quiet: true})
	nc, err := connect(t.Context(), f.Connect("", "corral-cli"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{CreateOnly: true})
	require.NoError(t, err)

	type cli struct {
		logs *logtest.Buffer
		reg  *prometheus.Registry
	}
	start := func(level slog.Level) cli {
		logs := &logtest.Buffer{}
		opts := cliClientOptions(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: level})))
		reg := prometheus.NewRegistry()
		opts.Metrics = broker.NewClientMetrics(reg) // to see the loss it logs (after logging)
		c, err := broker.NewClient(t.Context(), nc, stores, opts)
		require.NoError(t, err)
		require.NoError(t, c.WaitReady(t.Context()))
		farmtest.Eventually(t, 10*time.Second, func() bool { return len(c.Nodes()) == 2 }, "both nodes alive for the client")
		return cli{logs: logs, reg: reg}
	}
	info, debug := start(slog.LevelInfo), start(slog.LevelDebug)
	f.KillNode("n2")
	for _, c := range []cli{info, debug} {
		farmtest.Eventually(t, 20*time.Second, func() bool { return lossesOf(t, c.reg, "n2") == 1 }, "n2 lost")
	}
	assert.Empty(t, info.logs.Line(`msg="node lost"`), "the command's terminal:\n%s", info.logs)
	assert.NotEmpty(t, debug.logs.Line(`msg="node lost"`), "--log-level debug shows the farm client's log")
}

// lossesOf is corral_node_losses_total of node on reg: counted after the loss is logged.
func lossesOf(t *testing.T, reg *prometheus.Registry, node string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != "corral_node_losses_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "node" && l.GetValue() == node {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
