package vision_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/service"
)

// idleEngine answers every operation with nothing found. The probe never reaches an engine,
// and the real one needs cgo (the vision build tag).
type idleEngine struct{}

func (idleEngine) OCR(context.Context, vision.OCRRequest) (vision.OCRResult, error) {
	return vision.OCRResult{V: vision.WireVersion}, nil
}

func (idleEngine) Match(context.Context, vision.MatchRequest) (vision.MatchResult, error) {
	return vision.MatchResult{V: vision.WireVersion}, nil
}

func (idleEngine) Elements(context.Context, vision.ElementsRequest) (vision.ElementsResult, error) {
	return vision.ElementsResult{V: vision.WireVersion}, nil
}

func (idleEngine) Diff(context.Context, vision.DiffRequest) (vision.DiffResult, error) {
	return vision.DiffResult{V: vision.WireVersion}, nil
}

func (idleEngine) Annotate(context.Context, vision.AnnotateRequest) (vision.AnnotateResult, error) {
	return vision.AnnotateResult{V: vision.WireVersion}, nil
}

// The client's probe of whether a silent worker still listens (sent while a call waits on a
// hung worker, and while one is passed over as hung) is no request of the worker's: a worker
// that reads it, as a hung one does once it runs again, counts no bad input. A stopped worker
// is told from one that listens.
func TestProbeOfAWorkerCountsNoBadInput(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	connect := func() *nats.Conn {
		nc, err := nats.Connect(ns.ClientURL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		return nc
	}
	reg := prometheus.NewRegistry()
	worker, err := service.Start(connect(), service.Options{Engine: idleEngine{}, Metrics: service.NewMetrics(reg)})
	require.NoError(t, err)
	id := worker.Info().ID
	nc := connect()
	client := vision.NewClient(nc, 20*time.Second)

	require.True(t, client.Listens(t.Context(), id), "a running worker does not listen")
	// The worker took the probe once micro counts it (after its handler returns); its Stop then
	// waits for whatever the probe started.
	require.Eventually(t, func() bool { return requestsTaken(t.Context(), nc, id) > 0 }, 10*time.Second, 10*time.Millisecond,
		"the worker took no probe")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.NoError(t, worker.Stop(ctx))
	assert.Zero(t, badInputs(t, reg), "the probe counted as a bad request")
	assert.False(t, client.Listens(t.Context(), id), "a stopped worker still listens")
}

// requestsTaken is how many requests worker id's micro service counts, all its endpoints' (-1:
// its stats did not come).
func requestsTaken(ctx context.Context, nc *nats.Conn, id string) int {
	msg, err := nc.RequestWithContext(ctx, "$SRV.STATS."+vision.Service+"."+id, nil)
	var stats micro.Stats
	if err != nil || json.Unmarshal(msg.Data, &stats) != nil {
		return -1
	}
	n := 0
	for _, e := range stats.Endpoints {
		n += e.NumRequests
	}
	return n
}

// badInputs is what a worker's metrics count as bad input: its requests and its errors.
func badInputs(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var n float64
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if (l.GetName() == "outcome" || l.GetName() == "reason") && l.GetValue() == service.OutcomeBadInput {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return n
}
