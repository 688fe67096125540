//go:build vision

package tools

import (
	"context"
	"encoding/json"
	"image"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/tcplink"
	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/corpus"
	"github.com/corral-farm/corral/vision/service"
	"github.com/corral-farm/corral/vision/worker"
)

// stallProxy is a TCP proxy to a NATS server that stops passing bytes when stalled, its
// connections left open: to NATS, the process behind it is stopped (kill -STOP).
type stallProxy struct {
	addr    string
	stalled atomic.Bool
}

func startStallProxy(t *testing.T, target string) *stallProxy {
	t.Helper()
	p := &stallProxy{}
	p.addr = tcplink.Forward(t, target, p.pass)
	return p
}

// pass copies from src to dst until either closes, or, once stalled, holds what it read.
func (p *stallProxy) pass(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if p.stalled.Load() {
			return // bytes read and never passed on: the connection stays open, silent
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *stallProxy) url() string { return "nats://" + p.addr }

// A worker that answered lately and then hung (stopped with kill -STOP) costs a vision call a
// few seconds, not its attempt: the node's tools skip their ping for 10 s after an answer, and
// the client's own check, a ping once a request has waited 3 s, goes unanswered. A call that a
// healthy worker answers at once sends no ping.
func TestVisionCallToAWorkerHungSinceItsLastAnswer(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	connect := func(url string) *nats.Conn {
		nc, err := nats.Connect(url)
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		return nc
	}
	proxy := startStallProxy(t, ns.Addr().String())
	eng, err := worker.New(worker.Options{Parallel: 1})
	require.NoError(t, err, "the vision engine does not start: make setup installs Tesseract and OpenCV")
	t.Cleanup(eng.Close)
	svc, err := service.Start(connect(proxy.url()), service.Options{Engine: eng, Parallel: 1, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = svc.Stop(ctx)
	})
	var pings atomic.Int32
	watcher := connect(ns.ClientURL())
	_, err = watcher.Subscribe(vision.PingSubject, func(*nats.Msg) { pings.Add(1) }) // hears, never answers
	require.NoError(t, err)
	require.NoError(t, watcher.Flush())
	nodeConn := connect(ns.ClientURL())
	client := vision.NewClient(nodeConn, time.Minute)
	ops := DefaultOpsWith(OpsConfig{Vision: client})
	s := smallScreen(t, corpus.Settings, 1)
	p := &corpusPhone{s: s}
	run := func(tool, args string) (time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
		defer cancel()
		began := time.Now()
		_, err := ops[tool].Run(ctx, &Task{Driver: p, Args: json.RawMessage(args)})
		return time.Since(began), err
	}
	pinged := func() int32 {
		require.NoError(t, nodeConn.Flush())
		require.NoError(t, watcher.Flush())
		return pings.Load()
	}
	args, _ := json.Marshal(TapOCRArgs{Text: s.Elements[1].Text})
	_, err = run("tap_ocr", string(args))
	require.NoError(t, err)
	require.Equal(t, int32(1), pinged(), "the tools ping before their first call")
	png, err := corpus.EncodePNG(corpus.Crop(s.Image, image.Rect(0, 0, 320, 200)))
	require.NoError(t, err)
	_, err = client.Diff(t.Context(), vision.DiffRequest{V: vision.WireVersion, Before: png, After: png})
	require.NoError(t, err)
	assert.Equal(t, int32(1), pinged(), "a call a healthy worker answers at once sends no ping")

	proxy.stalled.Store(true)
	took, err := run("tap_ocr", string(args))
	require.Error(t, err)
	assert.Equal(t, broker.CodeNoVision, ErrorCode(err), "%v", err)
	assert.Contains(t, err.Error(), "did not answer the ping within 2s")
	assert.Less(t, took, 10*time.Second, "the hung check's bound (3 s + the ping's 2 s), not the attempt's minute")
	assert.Equal(t, int32(2), pinged(), "the tools skipped their ping (a worker answered within 10 s): only the client's check pinged")
}
