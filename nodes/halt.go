package nodes

import (
	"context"
	"time"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// haltTimeout bounds a driver's halt.
const haltTimeout = 10 * time.Second

// haltReason is why a halted device is shown unhealthy: what it takes to use it again.
const haltReason = "halted by emergency_stop: when a person has looked at it, resume with arm_recover"

// halt halts the machine of device serial after its tasks were aborted (emergency_stop), if
// its driver can: outside the device's queue, since nothing may run before it.
func (n *Node) halt(serial string, a broker.AbortAnswer) broker.AbortAnswer {
	n.mu.Lock()
	d := n.devices[serial]
	n.mu.Unlock()
	h, ok := d.(device.Halter)
	if !ok {
		return a
	}
	ctx, cancel := context.WithTimeout(context.Background(), haltTimeout)
	defer cancel()
	if err := h.Halt(ctx); err != nil {
		n.cfg.Log.Error("emergency stop: the device did not halt", "serial", serial, "err", err)
		a.Error, a.Code = "the device did not halt: "+err.Error(), broker.CodeDriver
		return a
	}
	n.cfg.Log.Warn("emergency stop: device halted", "serial", serial)
	a.Halted = true
	// Shown unhealthy, out of the free lists, until a task (arm_recover) brings it back; a
	// driver that reports its halts (armhalt.go) has said so itself, in its words.
	if _, reports := d.(haltReporter); !reports {
		n.system.Root.Send(n.sched, actors.SetHalted{Serial: serial, Reason: haltReason})
	}
	return a
}
