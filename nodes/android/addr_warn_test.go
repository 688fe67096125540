package android

import (
	"context"
	"flag"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

const badPortLog = "ANDROID_ADB_SERVER_PORT is not a port: using the adb server's default port; set it to a port (1-65535), " +
	"as adb itself wants it, or unset it"

// ANDROID_ADB_SERVER_PORT=abc was ignored in silence: the farm followed the adb server on
// 5037, not the one the user meant. It still falls back, and a node with --adb auto says so
// on its own logger, once, naming the variable and its value.
func TestBadADBServerPortIsWarnedOf(t *testing.T) {
	t.Setenv("ANDROID_ADB_SERVER_ADDRESS", "")
	t.Setenv("ANDROID_ADB_SERVER_PORT", "5038")
	assert.Equal(t, "127.0.0.1:5038", ServerAddr())
	_, logs := autoAttach(t)
	assert.Empty(t, warnings(logs), "a good port is not warned of")

	t.Setenv("ANDROID_ADB_SERVER_PORT", "abc")
	assert.Equal(t, "127.0.0.1:5037", ServerAddr())
	_, logs = autoAttach(t)
	assert.Equal(t, []string{"WARN"}, levels(logs, badPortLog))
	for _, rec := range logs.Records() {
		if rec.Message != badPortLog {
			continue
		}
		attrs := map[string]string{}
		rec.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
		assert.Equal(t, map[string]string{"ANDROID_ADB_SERVER_PORT": "abc", "port": "5037"}, attrs)
	}
}

// autoAttach starts a node's Android platform with --adb auto, the default, and returns its
// registry and log; it stops at the test's end.
func autoAttach(t *testing.T) (*registry, *logtest.Recorder) {
	t.Helper()
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	a := Platform().Flags(fs)
	require.NoError(t, fs.Parse(nil))
	logs := &logtest.Recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	reg := newRegistry()
	stop, err := a.Attach(ctx, reg, slog.New(logs))
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); stop() })
	return reg, logs
}
