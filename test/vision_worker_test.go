//go:build vision

package test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/vision/service"
	"github.com/corral-farm/corral/vision/worker"
)

// haveVisionWorker says whether this build can start a real vision worker (-tags vision).
const haveVisionWorker = true

// startVisionWorker serves the corral-vision micro service with the real engine (Tesseract and
// OpenCV) on the NATS server at url, until the test ends.
func startVisionWorker(t *testing.T, url string) {
	t.Helper()
	eng, err := worker.New(worker.Options{Parallel: 2})
	require.NoError(t, err)
	t.Cleanup(eng.Close)
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	svc, err := service.Start(nc, service.Options{Engine: eng, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })
}
