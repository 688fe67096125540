package actors

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
)

// The registry says since when and by whom a node drains, on its free and its leased devices
// alike (the console shows it), and forgets both when the node is undrained.
func TestRegistryShowsWhoDrainsAndSince(t *testing.T) {
	f := newFarm(t, Config{}, newRig(t, "d1"), newRig(t, "d2"))
	f.waitState("d1", broker.StateOnline)
	f.waitState("d2", broker.StateOnline)
	f.lease("d2", broker.Holder{Principal: "alice", Client: "cli"})

	before := time.Now()
	ans := f.drain(broker.DrainStart)
	for _, serial := range []string{"d1", "d2"} {
		e := f.entry(serial)
		assert.True(t, e.Draining, serial)
		assert.Equal(t, "ops", e.DrainingBy, "%s: who drains", serial)
		assert.True(t, e.DrainingSince.Equal(ans.Since), "%s: draining since %v, the drain answer says %v", serial, e.DrainingSince, ans.Since)
		assert.False(t, e.DrainingSince.Before(before), "%s: draining since %v, before the drain", serial, e.DrainingSince)
	}
	assert.Equal(t, broker.StateDraining, f.entry("d1").State)
	assert.Equal(t, broker.StateLeased, f.entry("d2").State)

	f.drain(broker.DrainUndo)
	for _, serial := range []string{"d1", "d2"} {
		e := f.entry(serial)
		assert.False(t, e.Draining, serial)
		assert.Empty(t, e.DrainingBy, "%s after the undrain", serial)
		assert.True(t, e.DrainingSince.IsZero(), "%s after the undrain: since %v", serial, e.DrainingSince)
	}
}

// A drain whose by is too long for every registry entry to carry is refused, and changes nothing.
func TestDrainByTooLongIsRefused(t *testing.T) {
	f := newFarm(t, Config{}, newRig(t, "d1"))
	f.waitState("d1", broker.StateOnline)
	p := make(chan broker.DrainAnswer, 1)
	f.root.Send(f.sched, Drain{Req: broker.DrainRequest{Action: broker.DrainStart, By: strings.Repeat("x", maxDrainBy+1)},
		Reply: func(a broker.DrainAnswer) { p <- a }})
	ans := recv(t, p, "drain")
	assert.Equal(t, broker.CodeBadInput, ans.Code, "%+v", ans)
	assert.Contains(t, ans.Error, "at most 128")
	assert.False(t, f.drain(broker.DrainStatus).Draining, "the refused drain drained the node")
}
