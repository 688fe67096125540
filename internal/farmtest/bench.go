package farmtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
	"github.com/corral-farm/corral/vision"
)

// StartEmpty starts a farm with its NATS server and a gateway but no node, and stops it when
// the test or benchmark ends. Benchmarks use it to time how nodes come up (StartNodes).
// Options.Nodes and PhonesPerNode are ignored.
func StartEmpty(t testing.TB, opts Options) *Farm {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	done := new(atomic.Bool)
	if !opts.Quiet {
		level := slog.LevelWarn
		if os.Getenv("CORRAL_TEST_DEBUG") != "" {
			level = slog.LevelDebug
		}
		log = slog.New(slog.NewTextHandler(testWriter{t, done}, &slog.HandlerOptions{Level: level}))
	}
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &Farm{done: done, t: t, ctx: ctx, cancel: cancel, opts: opts, NATS: ns, URL: ns.ClientURL(), Registry: prometheus.NewRegistry(),
		log: log, nodes: map[string]*nodes.Node{}, phones: map[string]*sim.Phone{}}
	f.metrics = actors.NewMetrics(f.Registry)
	t.Cleanup(f.stop)
	f.StartGateway()
	return f
}

// StartNodes starts one node per id at the same time, as separate machines would, each with
// count simulated phones named <id>-p<k>. It returns once every node has been given its phones
// (the registry catches up asynchronously: see WaitDevices, or poll Devices).
func (f *Farm) StartNodes(count int, ids ...string) error {
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() { errs[i] = f.startNode(id, count) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// startNode is StartNode that returns its error instead of failing the test, so that it can
// run off the test's goroutine.
func (f *Farm) startNode(id string, count int) error {
	nc, err := broker.Connect(f.Connect(broker.UserName(broker.RoleNode, id), "node-"+id), f.log)
	if err != nil {
		return err
	}
	stores, err := broker.EnsureStores(f.ctx, nc, broker.StoreOptions{CreateOnly: true, Node: true}) // as corral node does
	if err != nil {
		nc.Close()
		return fmt.Errorf("node %s: %w", id, err)
	}
	n, err := nodes.Start(f.ctx, nodes.Config{ID: id, NC: nc, Stores: stores, LeaseTTL: f.opts.LeaseTTL,
		Grace: f.opts.Grace, MaxQueue: f.opts.MaxQueue, Metrics: f.metrics, Log: f.log,
		Ops: tools.DefaultOpsWith(tools.OpsConfig{Vision: vision.NewClient(nc, 0, vision.WithLog(f.log.With("node", id))), Passcodes: f.opts.Passcodes, Model: f.opts.Model, Log: f.log,
			Screenshots: nodes.ScreenshotSaver{Stores: stores, Node: id, Metrics: f.metrics, Log: f.log}})})
	if err != nil {
		nc.Close()
		return fmt.Errorf("node %s: %w", id, err)
	}
	f.mu.Lock()
	f.nodes[id] = n
	f.mu.Unlock()
	for k := 1; k <= count; k++ {
		p := sim.New(fmt.Sprintf("%s-p%d", id, k))
		f.mu.Lock()
		f.phones[p.Info().Serial] = p
		f.mu.Unlock()
		n.AddDriver(p)
	}
	return nil
}
