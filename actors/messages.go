package actors

import "github.com/corral-farm/corral/broker"

// Messages the scheduler accepts from the node runtime. Reply functions must not block: the
// node's implementation answers over NATS.
type (
	// SubmitTask asks to run a task on a device, now or after a wait in its queue.
	SubmitTask struct {
		Req      broker.TaskRequest
		Reply    func(broker.TaskResult)
		Progress func(broker.Progress) // nil without a progress subscriber
	}
	// AcquireLease asks for an explicit lease.
	AcquireLease struct {
		Req   broker.AcquireRequest
		Reply func(broker.LeaseAnswer)
	}
	// ReleaseLease gives a lease back.
	ReleaseLease struct {
		Req   broker.ReleaseRequest
		Reply func(broker.LeaseAnswer)
	}
	// AbortTasks cancels running (and with All, queued) tasks.
	AbortTasks struct {
		Req   broker.AbortRequest
		Reply func(broker.AbortAnswer)
	}
	// ListLeases asks for the node's explicit leases, handles blanked.
	ListLeases struct {
		Reply func(broker.LeasesAnswer)
	}
	// AddDevice brings a device under the scheduler; its actor is spawned and health-checked.
	AddDevice struct {
		Device Device
	}
	// RemoveDevice marks a device offline (unplugged): its task fails, its lease is revoked.
	RemoveDevice struct {
		Serial string
		Reason string
	}
	// SetHealth shows a device online (Err nil) or unhealthy with Err as the reason, as its
	// driver watches it (device.HealthReporter: an iPhone whose WebDriverAgent died). A report
	// that changes nothing costs nothing, so drivers may repeat theirs.
	SetHealth struct {
		Serial string
		Err    error
	}
	// SetHalted shows a device halted with Reason (emergency_stop held its machine until it
	// is recovered) or, with Reason "", no longer so. A halted device shows unhealthy but still
	// takes tasks, whatever its health checks say (halt.go); it is no longer halted once a
	// health check after a task passes. A HaltReporter device reports its halts itself.
	SetHalted struct {
		Serial string
		Reason string
	}
	// RevokeAll revokes every lease and fails every queued caller: the node was declared lost
	// or is shutting down. Epochs move on, so holders of the old ones are fenced.
	RevokeAll struct {
		Reason string
		// Shutdown: the node is stopping, not lost. Its devices go offline at once (they take
		// no new work), and a running task, cancelled, ends failed with code interrupted, its
		// node having stopped it, rather than lost with node_lost.
		Shutdown bool
	}
)
