package nodes_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// verbosePhone is a simulated phone whose driver says too much: thousands of tags and extras,
// and troubles (a health check's error, a report's) a mebibyte long.
type verbosePhone struct {
	*sim.Phone
	mu     sync.Mutex
	health error
	report func(error)
}

func (p *verbosePhone) Info() device.Info {
	i := p.Phone.Info()
	i.Extra = map[string]string{}
	for n := range 3000 {
		i.Tags = append(i.Tags, fmt.Sprintf("tag-%04d", n))
		i.Extra[fmt.Sprintf("note-%04d", n)] = strings.Repeat("x", 1<<10)
	}
	return i
}

func (p *verbosePhone) Health(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.health
}

func (p *verbosePhone) setHealth(err error) {
	p.mu.Lock()
	p.health = err
	p.mu.Unlock()
}

func (p *verbosePhone) ReportHealth(report func(error)) {
	p.mu.Lock()
	p.report = report
	p.mu.Unlock()
}

func (p *verbosePhone) reportHealth(err error) {
	p.mu.Lock()
	report := p.report
	p.mu.Unlock()
	report(err)
}

// A driver's reason a mebibyte long (adb's whole output in an error) lands in the registry cut
// to a few KiB, ending with "…", and the gateway shows the device's states with it: unhealthy
// by a health check, by the driver's report, offline by an unplug. So does a device described
// by thousands of tags and extras. Unbounded, the entry is over the bucket's 64KiB (and NATS's
// payload): refused at every retry, it never lands, and the gateway never sees the device.
// The node says once a device and field that it cut, with sizes, not the text.
func TestDriverReasonOfAMebibyteLandsCut(t *testing.T) {
	r := newRestartRig(t, false)
	logs := &logtest.Buffer{}
	nc, err := broker.Connect(broker.ConnectOptions{URL: r.url, Name: "node-n1"}, r.log)
	require.NoError(t, err)
	stores, err := broker.EnsureStores(r.ctx, nc, broker.StoreOptions{})
	require.NoError(t, err)
	n, err := nodes.Start(r.ctx, nodes.Config{ID: "n1", NC: nc, Stores: stores, Metrics: r.metrics,
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	require.NoError(t, err)
	t.Cleanup(n.Stop)

	huge := func(what string) string { return what + ": " + strings.Repeat("é", 1<<19) }
	cutOf := func(reason string) func(broker.DeviceEntry) bool {
		return func(d broker.DeviceEntry) bool {
			return strings.HasSuffix(d.Reason, "…") && strings.HasPrefix(reason, strings.TrimSuffix(d.Reason, "…"))
		}
	}
	checkCut := func(d broker.DeviceEntry) {
		t.Helper()
		assert.LessOrEqual(t, len(d.Reason), 4<<10, "the reason shown")
		assert.Greater(t, len(d.Reason), 2<<10, "the reason shown")
		assert.True(t, utf8.ValidString(d.Reason), "cut inside a character")
	}

	p := &verbosePhone{Phone: sim.New("p1"), health: errors.New(huge("adb: health check"))}
	t.Cleanup(func() { _ = p.Close() })
	n.AddDriver(p)
	d := r.waitDevice("p1", "unhealthy with the health check's reason cut", func(d broker.DeviceEntry) bool {
		return d.State == broker.StateUnhealthy && cutOf(huge("adb: health check"))(d)
	})
	checkCut(d)
	assert.Len(t, d.Tags, 64, "the tags shown")
	assert.NotEmpty(t, d.Extra, "the extras shown")
	assert.Less(t, len(d.Extra), 3000, "the extras shown")

	p.setHealth(nil) // the next check passes
	r.waitDevice("p1", "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	p.reportHealth(errors.New(huge("adb: reported")))
	checkCut(r.waitDevice("p1", "unhealthy with the report's reason cut", func(d broker.DeviceEntry) bool {
		return d.State == broker.StateUnhealthy && cutOf(huge("adb: reported"))(d)
	}))
	p.reportHealth(nil)
	r.waitDevice("p1", "online again", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })

	n.RemoveDevice("p1", huge("unplugged"))
	checkCut(r.waitDevice("p1", "offline with the unplug's reason cut", func(d broker.DeviceEntry) bool {
		return d.State == broker.StateOffline && cutOf(huge("unplugged"))(d)
	}))

	told := logs.Line("field=reason")
	assert.Contains(t, told, "level=WARN")
	assert.Contains(t, told, "does not fit its device's registry entry")
	assert.Contains(t, told, "serial=p1")
	assert.Contains(t, told, fmt.Sprintf("bytes=%d", len(huge("adb: health check"))))
	assert.Equal(t, 1, strings.Count(logs.String(), "field=reason"), "said once a device:\n%.2000s", logs)
	assert.NotContains(t, told, "éé", "the text is not logged")
	assert.Contains(t, logs.String(), "field=extras", "the extras cut")
	assert.Contains(t, logs.String(), "field=tags", "the tags cut")
	assert.NotContains(t, logs.String(), "NATS writes failed", "a write refused")
}
