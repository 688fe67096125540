package nodes

import (
	"context"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// haltTimeout bounds a driver's halt.
const haltTimeout = 10 * time.Second

// halt halts the machine of the device req stops after its tasks were aborted
// (emergency_stop), if its driver can: outside the device's queue, since nothing may run
// before it. The halt says who asked and when, and the stop is recorded on the device's
// timeline (recordStop).
func (n *Node) halt(req broker.AbortRequest, a broker.AbortAnswer) broker.AbortAnswer {
	stop := device.Stop{By: stopperOf(req).String(), At: time.Now().UTC()}
	n.mu.Lock()
	d := n.devices[req.Serial]
	n.mu.Unlock()
	h, live := d.(device.Halter)
	if live {
		a = n.haltNow(h, req.Serial, stop, a)
	} else {
		a = n.haltGone(req.Serial, stop, a)
	}
	a.Record = n.recordStop(req, stop, a, live)
	return a
}

// haltNow halts the machine of serial through its driver.
func (n *Node) haltNow(h device.Halter, serial string, stop device.Stop, a broker.AbortAnswer) broker.AbortAnswer {
	ctx, cancel := context.WithTimeout(context.Background(), haltTimeout)
	defer cancel()
	if err := h.Halt(ctx, stop); err != nil {
		return n.haltUnconfirmed(serial, stop, err, a)
	}
	n.cfg.Log.Warn("emergency stop: device halted", "serial", serial, "by", stop.By)
	a.Halted = true // the driver reports it (device.Halter): unhealthy until arm_recover
	return a
}

// haltGone keeps the halt of a device whose driver could halt it but is gone (a rig whose link
// is lost): nothing can stop it now, but its driver finds the halt kept when it comes back
// (device.HaltStore), so it returns halted, not taking gestures until arm_recover.
func (n *Node) haltGone(serial string, stop device.Stop, a broker.AbortAnswer) broker.AbortAnswer {
	n.mu.Lock()
	gone := n.halters[serial] || n.known[serial].Platform == device.PlatformArm
	n.mu.Unlock()
	if !gone {
		return a // no machine to halt: its tasks aborted are all there is
	}
	ctx, cancel := context.WithTimeout(context.Background(), haltTimeout)
	defer cancel()
	if err := n.SaveHalt(ctx, serial, stop.Reason()); err != nil {
		n.cfg.Log.Error("emergency stop: the offline device's halt could not be kept", "serial", serial, "err", err)
		a.Error, a.Code = "it is offline, so nothing halted it, and its halt could not be kept: "+err.Error(), broker.CodeDriver
		return a
	}
	n.cfg.Log.Warn("emergency stop: offline device marked halted; it comes back halted", "serial", serial, "by", stop.By)
	a.Halted = true
	return a
}

// haltUnconfirmed answers a halt whose driver holds it but whose machine did not confirm the
// stop (a frozen controller: err): a Halter holds the halt from its call on, so the device
// refuses gestures until arm_recover whatever its machine did. The node keeps the halt in the
// farm too, as for a device gone (haltGone), so that the answer need not wait on the driver's
// own write: halted, with the device's failure and what to do. Only when the farm refuses the
// write is it not halted.
func (n *Node) haltUnconfirmed(serial string, stop device.Stop, err error, a broker.AbortAnswer) broker.AbortAnswer {
	ctx, cancel := context.WithTimeout(context.Background(), haltTimeout) // the halt may have spent its own
	defer cancel()
	if kerr := n.SaveHalt(ctx, serial, stop.Reason()); kerr != nil {
		n.cfg.Log.Error("emergency stop: the device did not halt, and its halt could not be kept", "serial", serial, "err", err, "keep_err", kerr)
		a.Error, a.Code = "the device did not halt: "+err.Error()+"; and its halt could not be kept: "+kerr.Error(), broker.CodeDriver
		return a
	}
	n.cfg.Log.Error("emergency stop: the device did not confirm the stop; its halt is kept", "serial", serial, "by", stop.By, "err", err)
	a.Halted = true
	a.Error, a.Code = "its halt is recorded and held until arm_recover (it refuses gestures meanwhile), "+
		"but the controller did not confirm the stop: "+err.Error(), broker.CodeDriver
	return a
}
