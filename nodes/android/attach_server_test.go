package android

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// attachLogged runs Attach on addr, logging to the returned recorder, until the test ends.
func attachLogged(t *testing.T, addr string) (*registry, *logtest.Recorder) {
	t.Helper()
	logs := &logtest.Recorder{}
	reg := newRegistry()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Attach(ctx, reg, addr, slog.New(logs)) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return reg, logs
}

// levels returns the level of each record with message msg.
func levels(r *logtest.Recorder, msg string) []string {
	var out []string
	for _, rec := range r.Records() {
		if rec.Message == msg {
			out = append(out, rec.Level.String())
		}
	}
	return out
}

// waitLogged waits until a record with message msg is logged.
func waitLogged(t *testing.T, r *logtest.Recorder, msg string) {
	t.Helper()
	require.Eventually(t, func() bool { return len(levels(r, msg)) > 0 }, 10*time.Second, 10*time.Millisecond, "%q is logged", msg)
}

const (
	serverDownLog = "adb server does not answer; its devices are offline until it does"
	serverUpLog   = "adb server answers again"
)

// A node started before its adb server keeps dialling it, and attaches its devices once it
// answers: one WARN while it does not, one INFO when it does.
func TestAttachServerStartedLater(t *testing.T) {
	srv := privateServer(t)
	srv.stop() // its port, with nothing on it yet
	reg, logs := attachLogged(t, srv.addr())
	waitLogged(t, logs, serverDownLog)
	require.NoError(t, srv.start())
	dev := startDevice(t)
	srv.connect(t, dev)
	reg.waitFor(t, 10*time.Second, "attached once the server answers", func(r *registry) bool { return r.drivers[dev.Serial()] != nil })
	assert.Equal(t, []string{"WARN"}, levels(logs, serverDownLog), "the server not answering is logged once")
	assert.Equal(t, []string{"INFO"}, levels(logs, serverUpLog), "the server answering again is logged once")
	for _, rec := range logs.Records() {
		if rec.Message == serverDownLog {
			var err string
			rec.Attrs(func(a slog.Attr) bool {
				if a.Key == "err" {
					err = a.Value.String()
				}
				return true
			})
			assert.Contains(t, err, "adb server at "+srv.addr()+" does not answer")
		}
	}
}

// When the adb server dies, its devices go offline with that as the reason, and what to do;
// the node logs it once, and once when it answers again, after which the devices come back.
func TestAttachServerGone(t *testing.T) {
	srv := privateServer(t)
	dev := startDevice(t)
	srv.connect(t, dev)
	serial := dev.Serial()
	reg, logs := attachLogged(t, srv.addr())
	reg.waitFor(t, 10*time.Second, "attached", func(r *registry) bool { return r.drivers[serial] != nil })

	srv.stop()
	reg.waitFor(t, 5*time.Second, "removed", func(r *registry) bool { return r.removed[serial] != "" })
	reg.mu.Lock()
	reason := reg.removed[serial]
	reg.mu.Unlock()
	for _, want := range []string{"adb server at " + srv.addr() + " does not answer: is it running? Start it (adb start-server)", "ANDROID_ADB_SERVER_PORT"} {
		assert.Contains(t, reason, want, "the reason names the adb server and what to do")
	}
	waitLogged(t, logs, serverDownLog)
	waitLogged(t, logs, "android device detached")
	for _, line := range logged(logs, "android device detached") {
		assert.Equal(t, "INFO "+serial, line, "no empty state attribute: the device has none, its server is gone")
	}

	require.NoError(t, srv.start())
	srv.connect(t, dev)
	reg.waitFor(t, 10*time.Second, "attached again", func(r *registry) bool { return r.drivers[serial] != nil })
	assert.Equal(t, []string{"WARN"}, levels(logs, serverDownLog), "the server going is logged once")
	assert.Equal(t, []string{"INFO"}, levels(logs, serverUpLog), "the server answering again is logged once")
}
