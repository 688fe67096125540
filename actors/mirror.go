package actors

import "github.com/corral-farm/corral/broker"

// Mirror is where the scheduler reports what others must see: the registry, the lease mirror,
// the event stream and task records. Every method must return at once (the node's
// implementation queues and coalesces writes to NATS); the scheduler never waits on I/O.
type Mirror interface {
	Device(entry broker.DeviceEntry)
	// Lease mirrors a lease; nil deletes the serial's lease.
	Lease(serial string, l *broker.Lease)
	Event(ev broker.Event)
	TaskRecord(res broker.TaskResult)
}
