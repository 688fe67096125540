package android

import (
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	waitingQuietlyLog = "adb server does not answer yet; waiting for it"
	nowAnswersLog     = "adb server now answers; attaching its devices"
)

// warnings returns the messages logged at WARN or above.
func warnings(r *logtest.Recorder) []string {
	var out []string
	for _, rec := range r.Records() {
		if rec.Level >= slog.LevelWarn {
			out = append(out, rec.Message)
		}
	}
	return out
}

// With --adb auto (the default) a node follows the local adb server even when none answers as it
// starts: on a developer's machine the first adb command starts it. Nobody asked for it, so its
// absence is logged at DEBUG only; once it answers, one INFO says so and its phones are
// attached. From then on it is any adb server: it going away is a WARN.
func TestAutoAttachesAdbServerStartedLater(t *testing.T) {
	srv := privateServer(t)
	srv.stop() // its port, with nothing on it yet
	_, port, err := net.SplitHostPort(srv.addr())
	require.NoError(t, err)
	t.Setenv("ANDROID_ADB_SERVER_PORT", port) // the adb tool reads it too: its host stays 127.0.0.1
	require.Equal(t, srv.addr(), ServerAddr())

	reg, logs := autoAttach(t)

	// Once the first dial has failed, at DEBUG, or as a named server's WARN.
	require.Eventually(t, func() bool { return len(levels(logs, waitingQuietlyLog))+len(levels(logs, serverDownLog)) > 0 },
		10*time.Second, 10*time.Millisecond, "the adb server not answering is logged")
	assert.Empty(t, warnings(logs), "no WARN about an adb server nobody named while it does not answer")
	assert.Equal(t, []string{"DEBUG"}, levels(logs, waitingQuietlyLog))

	require.NoError(t, srv.start())
	dev := startDevice(t)
	srv.connect(t, dev)
	reg.waitFor(t, 10*time.Second, "attached once the server answers", func(r *registry) bool { return r.drivers[dev.Serial()] != nil })
	assert.Equal(t, []string{"INFO"}, levels(logs, nowAnswersLog), "the server answering is logged once")
	assert.Empty(t, levels(logs, serverUpLog), "it did not answer again: it answers for the first time")
	assert.Empty(t, warnings(logs))

	srv.stop()
	waitLogged(t, logs, serverDownLog)
	assert.Equal(t, []string{"WARN"}, levels(logs, serverDownLog), "once it has answered, it going away is news")
	assert.Equal(t, []string{"DEBUG"}, levels(logs, waitingQuietlyLog))
}
