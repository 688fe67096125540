package rig

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

// syncBuffer is a log's output, read while the rig still writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// line is the first line holding s, "" when none does yet.
func (b *syncBuffer) line(s string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	for l := range strings.Lines(b.buf.String()) {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// emptyCalibrations is a registry that keeps calibrations and has none yet (a new farm).
type emptyCalibrations struct{}

func (emptyCalibrations) AddDriver(device.Driver)                               {}
func (emptyCalibrations) RemoveDevice(string, string)                           {}
func (emptyCalibrations) SaveCalibration(context.Context, string, []byte) error { return nil }
func (emptyCalibrations) LoadCalibration(context.Context, string) ([]byte, error) {
	return nil, nil
}

// A rig of a rigs file names itself once in the lines it logs as it calibrates: the rig's
// logger already says which rig it is (`rig=arm-twin-1 rig=arm-twin-1` was logged).
func TestRigsFileRigIsNamedOnceWhenCalibrating(t *testing.T) {
	tw, addr := servedTwin(t, 3)
	mux := http.NewServeMux()
	mux.Handle("/camera", tw.Camera.Handler())
	mux.Handle("/calibration", tw.ReadbackHandler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	lo, hi := tw.RoughArea()
	spec := RigSpec{Serial: "arm-twin-1", GRBL: "tcp://" + addr, Camera: srv.URL + "/camera",
		Readback: srv.URL + "/calibration", ScreenArea: []float64{lo.X, lo.Y, hi.X, hi.Y}}

	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		keepRig(ctx, emptyCalibrations{}, spec, slog.New(slog.NewTextHandler(&out, nil)))
	}()
	t.Cleanup(func() { cancel(); <-done })

	waitFor(t, func() bool { return out.line("arm rig: calibrating") != "" })
	line := out.line("arm rig: calibrating")
	if n := strings.Count(line, "rig=arm-twin-1"); n != 1 {
		t.Fatalf("the rig is named %d times, want once: %s", n, line)
	}
}
