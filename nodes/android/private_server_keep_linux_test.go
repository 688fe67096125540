package android

import (
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reasonLog is a registry that also keeps every reason it was given, in order.
type reasonLog struct {
	*registry
	mu      sync.Mutex
	reasons map[string][]string
}

func (r *reasonLog) RemoveDevice(serial, reason string) {
	r.mu.Lock()
	r.reasons[serial] = append(r.reasons[serial], reason)
	r.mu.Unlock()
	r.registry.RemoveDevice(serial, reason)
}

func (r *reasonLog) of(serial string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reasons[serial]...)
}

// The private adb server of --sim-android that dies (killed here by pid, as an operator or
// the OOM killer would) is started again on its port with its devices, which come back online;
// meanwhile their reason says that, not how to start someone's adb server. Logged at WARN once,
// with the exit status.
func TestPrivateServerRestartsWhenItExits(t *testing.T) {
	adbTool(t)
	logs := &logtest.Recorder{}
	reg := &reasonLog{registry: newRegistry(), reasons: map[string][]string{}}
	off, sims, startup := "off", 2, adbsim.DefaultInputStartup
	stop, err := (&setup{adb: &off, sims: &sims, simStartup: &startup}).Attach(t.Context(), reg, slog.New(logs))
	require.NoError(t, err)
	t.Cleanup(stop)
	online := func(r *registry) bool { return len(r.drivers) == sims }
	reg.waitFor(t, 30*time.Second, "both simulated devices online", online)
	reg.mu.Lock()
	var serials []string
	for serial := range reg.drivers {
		serials = append(serials, serial)
	}
	reg.mu.Unlock()

	port := 0
	for _, rec := range logs.Records() {
		rec.Attrs(func(a slog.Attr) bool {
			if a.Key == "adb_server" && rec.Message == "simulated Android devices connected" {
				_, p, _ := strings.Cut(a.Value.String(), "127.0.0.1:")
				port, _ = strconv.Atoi(p)
			}
			return true
		})
	}
	require.NotZero(t, port, "the node logs its private adb server's address")
	pid := listenerPID(t, port)
	t.Cleanup(func() { endIfStillListening(port, pid) })
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))

	reg.waitFor(t, 30*time.Second, "both offline", func(r *registry) bool { return len(r.removed) == sims })
	reg.waitFor(t, 60*time.Second, "both online again", online)
	restarting := "corral's own adb server for simulated devices exited; restarting it"
	for _, serial := range serials {
		assert.Contains(t, reg.of(serial), restarting, "%s's reasons", serial)
		for _, reason := range reg.of(serial) {
			assert.NotContains(t, reason, "ANDROID_ADB_SERVER_PORT", "%s: the hint for someone's adb server", serial)
		}
	}
	assert.NotEqual(t, pid, listenerPID(t, port), "a new server on the same port")
	var warned []string
	for _, rec := range logs.Records() {
		if rec.Message == restarting {
			warned = append(warned, rec.Level.String())
			rec.Attrs(func(a slog.Attr) bool {
				if a.Key == "exit" {
					assert.Equal(t, "signal: killed", a.Value.String())
				}
				return true
			})
		}
	}
	assert.Equal(t, []string{"WARN"}, warned, "logged once, at WARN")
}
