package broker

// Every NATS subject Corral uses, in one place. Subjects are lowercase, general to specific,
// ids last. A name ending in T is a template for fmt.Sprintf; its wildcard twin has no T.
const (
	// Prefix is the root of every Corral subject.
	Prefix = "corral.v1"

	// NodeService is the nats micro service name every edge node registers, so operators see
	// nodes with `nats micro ls` and `nats micro info corral-node`.
	NodeService = "corral-node"

	// NodeGroupT is the micro endpoint group of one node: corral.v1.node.<node>.
	NodeGroupT = Prefix + ".node.%s"
	// Endpoint names under a node's group.
	EndpointTask    = "task"    // run a tool call on a device (TaskRequest → TaskResult)
	EndpointAcquire = "acquire" // take a lease (AcquireRequest → LeaseAnswer)
	EndpointRelease = "release" // give a lease back (ReleaseRequest → LeaseAnswer)
	EndpointAbort   = "abort"   // cancel running/queued tasks (AbortRequest → AbortAnswer)
	EndpointLeases  = "leases"  // list this node's leases and queues (LeasesRequest → LeasesAnswer)
	EndpointDrain   = "drain"   // drain, undrain or report the node (DrainRequest → DrainAnswer)
	EndpointWatch   = "watch"   // keep a device's live screen coming (WatchRequest → WatchAnswer; frames.go)

	// Heartbeats: every node publishes one every HeartbeatInterval.
	Heartbeats = Prefix + ".heartbeat.*"
	HeartbeatT = Prefix + ".heartbeat.%s"

	// Everything a node publishes names the node right after the kind, so that a node's NATS
	// user may publish under its own id and no other (PermissionsFor): no node can forge
	// another's task records, device or lease events, or progress.
	ProgressT   = Prefix + ".progress.%s.%s"         // task progress: node, task id; published by the node
	Progresses  = Prefix + ".progress.*.*"           //
	Events      = Prefix + ".events.>"               // the CORRAL_EVENTS stream's subjects
	EventTaskT  = Prefix + ".events.task.%s.%s"      // a finished task's record: node, task id
	EventTasks  = Prefix + ".events.task.*.*"        //
	EventDevT   = Prefix + ".events.device.%s.%s.%s" // device state change: node, serial, state
	EventLeaseT = Prefix + ".events.lease.%s.%s.%s"  // lease change: node, serial, granted|released|expired|revoked
	EventNodeT  = Prefix + ".events.node.%s.%s"      // node change: node, up|lost|down|draining|undrained
	EventNodes  = Prefix + ".events.node.*.*"        //

	// Live screens (the console): JPEG frames of a watched device, published by its node while
	// a gateway watches it (frames.go). Not in the event stream: a frame is stale in a second.
	FramesT = Prefix + ".frames.%s.%s" // node, Token(serial); published by the node
	Frames  = Prefix + ".frames.*.*"   //

	// legacyEventTasks are the task records of Corral before node-scoped subjects
	// (corral.v1.events.task.<task id>), still read until the stream has aged them out
	// (EventsMaxAge, 7 days by default) after an upgrade. No node may publish them any more.
	legacyEventTaskT = Prefix + ".events.task.%s"
	anyEventTasks    = Prefix + ".events.task.>" // both
)

// JetStream names. Created idempotently at start by EnsureStreams.
const (
	// RegistryBucket holds one DeviceEntry per device, keyed by Token(serial).
	RegistryBucket = "corral_devices"
	// LeaseBucket mirrors the explicit leases, keyed by Token(serial); the owner node is the authority.
	LeaseBucket = "corral_leases"
	// SessionBucket holds the default device of MCP protocol sessions, keyed by session id,
	// and the latest task id of each session (or holder), keyed latest_<token>.
	SessionBucket = "corral_sessions"
	// CalibrationBucket holds the calibrations of rigs (Stores.Calibrations), keyed by
	// CalibrationKey, and their halts until they are recovered, keyed by HaltKey.
	CalibrationBucket = "corral_calibrations"
	// EventStream keeps device, lease and node events and task records.
	EventStream = "CORRAL_EVENTS"
)
