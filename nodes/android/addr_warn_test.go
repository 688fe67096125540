package android

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/internal/logtest"
)

// ANDROID_ADB_SERVER_PORT=abc was ignored in silence: the farm followed the adb server on
// 5037, not the one the user meant. It still falls back, and says so once, naming the variable
// and its value.
func TestBadADBServerPortIsWarnedOfOnce(t *testing.T) {
	var logged logtest.Buffer
	before := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	t.Cleanup(func() { slog.SetDefault(before) })
	badPortWarned.Store(false)
	t.Cleanup(func() { badPortWarned.Store(false) })

	t.Setenv("ANDROID_ADB_SERVER_ADDRESS", "")
	t.Setenv("ANDROID_ADB_SERVER_PORT", "5038")
	assert.Equal(t, "127.0.0.1:5038", ServerAddr())
	assert.Empty(t, logged.String(), "a good port is not warned of")

	t.Setenv("ANDROID_ADB_SERVER_PORT", "abc")
	assert.Equal(t, "127.0.0.1:5037", ServerAddr())
	assert.Equal(t, "127.0.0.1:5037", ServerAddr())
	assert.Equal(t, 1, strings.Count(logged.String(), "ANDROID_ADB_SERVER_PORT is not a port"), logged.String())
	assert.Contains(t, logged.String(), "ANDROID_ADB_SERVER_PORT=abc")
	assert.Contains(t, logged.String(), "port=5037")
}
