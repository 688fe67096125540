package nodes

import "github.com/corral-farm/corral/actors"

// haltReporter is a driver that tells when its machine halts and is recovered (an arm rig:
// emergency_stop, or its controller's alarm), with why: report is called at every change,
// with "" once it is recovered, until the driver is closed.
type haltReporter interface {
	ReportHalt(report func(reason string))
}

var _ actors.HaltReporter = (*boundDevice)(nil)

// ReportHalt hands report to the driver if it tells its halts (actors.HaltReporter): the
// scheduler then shows the device unhealthy with the reason while it still takes tasks, so
// that arm_recover gets through.
func (b *boundDevice) ReportHalt(report func(reason string)) {
	if h, ok := b.drv.(haltReporter); ok {
		h.ReportHalt(report)
	}
}
