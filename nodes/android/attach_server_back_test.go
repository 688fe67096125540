package android

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// When the adb server comes back without the devices it had (a restarted server forgets what
// adb connect gave it), their reason stops saying the server does not answer and says they
// are disconnected; one connected again comes back, the other keeps that reason.
func TestAttachServerBackWithoutDevices(t *testing.T) {
	srv := privateServer(t)
	one, two := startDevice(t), startDevice(t)
	srv.connect(t, one)
	srv.connect(t, two)
	reg, logs := attachLogged(t, srv.addr())
	reg.waitFor(t, 10*time.Second, "both attached", func(r *registry) bool {
		return r.drivers[one.Serial()] != nil && r.drivers[two.Serial()] != nil
	})

	srv.stop()
	serverDown := "adb server at " + srv.addr() + " does not answer"
	reg.waitFor(t, 10*time.Second, "both offline, the server down", func(r *registry) bool {
		return strings.HasPrefix(r.removed[one.Serial()], serverDown) && strings.HasPrefix(r.removed[two.Serial()], serverDown)
	})

	if err := srv.start(); err != nil {
		t.Fatal(err)
	}
	waitLogged(t, logs, serverUpLog)
	reg.waitFor(t, 10*time.Second, "both disconnected, the server answering without them", func(r *registry) bool {
		return r.removed[one.Serial()] == RemovedReason && r.removed[two.Serial()] == RemovedReason
	})

	srv.connect(t, one)
	reg.waitFor(t, 10*time.Second, "the one connected again attached", func(r *registry) bool { return r.drivers[one.Serial()] != nil })
	reg.mu.Lock()
	defer reg.mu.Unlock()
	assert.Equal(t, RemovedReason, reg.removed[two.Serial()], "the other is still disconnected")
	assert.Nil(t, reg.drivers[two.Serial()])
}

// A device the adb server lists again in another state gets that state and what to do as its
// reason; one it lists ready keeps its reason until it is attached.
func TestAttachServerBackStates(t *testing.T) {
	reg := newRegistry()
	a := &attacher{reg: reg, addr: "127.0.0.1:1", log: slog.New(slog.DiscardHandler), live: map[string]*attachment{},
		settling: map[string]settling{}, gone: map[string]bool{"A": true, "B": true, "C": true},
		states: func(context.Context) (map[string]string, error) {
			return map[string]string{"A": "unauthorized", "B": "device"}, nil
		}}
	a.event(t.Context(), Event{Kind: ServerUp}, time.Now())
	assert.Equal(t, map[string]string{
		"A": RemovedReason + " (adb lists it unauthorized): " + StateHint("unauthorized"),
		"C": RemovedReason,
	}, reg.removed)
	assert.Equal(t, map[string]bool{"B": true}, a.gone, "B is on its way back")
}
