package nodes

import (
	"context"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// haltTimeout bounds a driver's halt.
const haltTimeout = 10 * time.Second

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
	a.Halted = true // the driver reports it (device.Halter): unhealthy until arm_recover
	return a
}
