package web

import (
	"context"
	"time"
)

// The node exports a device's gauges after each task, and when a HealthReporter reports: a
// browser that stops between tasks (idle, or reset as a lease ends) would otherwise keep its
// last memory gauge for ever. So the device reports its health (as Health answers it) each
// time its browser stops, and the node exports the gauges with it: memory_mib drops to 0.

// reportWait bounds the health check made for a report.
const reportWait = 10 * time.Second

// ReportHealth gives the device where to report its health (device.HealthReporter).
func (d *Driver) ReportHealth(report func(error)) {
	d.mu.Lock()
	d.report = report
	d.mu.Unlock()
}

// browserStopped reports the device's health once its browser has stopped, off the caller's
// goroutine (which may hold launching). A stopped browser is healthy (its next use starts one,
// and the report must not: a look at a device that is not elastic would); one started again
// meanwhile (a reset) is checked. A closed device has left the node: nothing to report.
func (d *Driver) browserStopped() {
	d.mu.Lock()
	report := d.report
	d.mu.Unlock()
	if report == nil || d.closed() {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), reportWait)
		defer cancel()
		if !d.Running() {
			report(nil)
			return
		}
		report(d.Health(ctx))
	}()
}
