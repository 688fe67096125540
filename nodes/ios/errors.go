package ios

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/ios/wda"
)

// ErrDisconnected is a call that failed because the device was unplugged.
var ErrDisconnected = errors.New("device disconnected")

// wdaError names what failed; a call whose time ran out says so (callended.go). When
// WebDriverAgent itself did not answer (not one of its error answers), either usbmuxd is gone
// (said as get_device_status says it, not WDA's URL), the device was unplugged (usbmuxd no
// longer lists it: "device disconnected") or WDA died, and the supervisor probes it at once,
// to restart it and to show the device unhealthy meanwhile.
func (d *Driver) wdaError(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return d.errorf(op, &endedError{err: err}, callEndedHint)
	}
	var answer *wda.Error
	if errors.As(err, &answer) {
		return d.errorf(op, err, "")
	}
	if errors.Is(err, ErrUnlisted) {
		return d.errorf(op, err, "it keeps its lease meanwhile: retry in a few seconds")
	}
	down := muxDown(err)
	if down == nil {
		// usbmuxd that died mid-call ends WDA's connection with an EOF: its list tells.
		down = d.o.Mux.stuck(context.Background())
	}
	if down != nil {
		d.sup.wake()
		return d.errorf(op, down, "WebDriverAgent is reached through it: retry once it answers")
	}
	if d.gone() {
		return d.errorf(op, fmt.Errorf("%w (%v)", ErrDisconnected, err), "plug it in again, or pick another device")
	}
	d.sup.wake()
	return d.errorf(op, err, "WebDriverAgent did not answer; it is being checked and restarted if it died: retry in a few seconds")
}

// gone says whether usbmuxd no longer lists the device.
func (d *Driver) gone() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	list, err := d.o.Mux.List(ctx)
	if err != nil {
		return false // usbmuxd itself is away: not this device's news
	}
	for _, e := range list {
		if e.Properties.SerialNumber == d.o.UDID {
			return false
		}
	}
	return true
}
