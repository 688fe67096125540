package nodes

import (
	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/nodes/device"
)

var _ actors.HaltReporter = (*boundDevice)(nil)

// ReportHalt hands report to the driver if it halts (device.Halter): the scheduler then
// shows the device unhealthy with the reason while it still takes tasks, so that arm_recover
// gets through. The driver's gauges (its alarm) are exported at each report too, not only
// after its next task.
func (b *boundDevice) ReportHalt(report func(reason string)) {
	if h, ok := b.drv.(device.Halter); ok {
		h.ReportHalt(func(reason string) {
			b.exportGauges()
			report(b.bounds.reasonText(b.info.Serial, reason))
		})
	}
}
