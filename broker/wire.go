package broker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// WireVersion is the version of every payload in this file. A receiver refuses a newer major
// version with a clear error instead of guessing.
const WireVersion = 1

// Device states (actors/README.md).
const (
	StateOnline    = "online"
	StateLeased    = "leased"
	StateBusy      = "busy"
	StateUnhealthy = "unhealthy"
	StateOffline   = "offline"
	// StateDraining is a free, healthy device of a draining node: it takes no new work. Leased
	// and busy devices of that node keep their state (what runs finishes) with Draining set.
	StateDraining = "draining"
)

// States lists the device states in a fixed order (metrics keep a zero for each).
var States = []string{StateOnline, StateLeased, StateBusy, StateUnhealthy, StateOffline, StateDraining}

// Task outcomes (actors/README.md).
const (
	OutcomeSucceeded = "succeeded"
	OutcomeFailed    = "failed"
	OutcomeAborted   = "aborted"
	OutcomeTimedOut  = "timed_out"
	OutcomeRefused   = "refused"
	OutcomeLost      = "lost"
)

// Outcomes lists the task outcomes in a fixed order.
var Outcomes = []string{OutcomeSucceeded, OutcomeFailed, OutcomeAborted, OutcomeTimedOut, OutcomeRefused, OutcomeLost}

// Refusal and failure codes: stable words an agent or a script can switch on.
const (
	CodeBusy          = "busy"               // another holder has the device; see Lease and QueueLen
	CodeUnknownDevice = "unknown_device"     // no device has this serial
	CodeBadInput      = "bad_input"          // the arguments are wrong; nothing ran
	CodeUnsupported   = "unsupported"        // the device's driver cannot do this
	CodeUnconfigured  = "unconfigured"       // the device's node lacks configuration the tool needs (the AI tools' model); nothing ran
	CodeUnhealthy     = "unhealthy"          // the device failed a health check
	CodeOffline       = "offline"            // the device is gone
	CodeStaleLease    = "stale_lease"        // the lease handle is unknown, expired or fenced
	CodeNodeLost      = "node_lost"          // the node that owns the device stopped answering
	CodeWaitExpired   = "wait_expired"       // waited wait_seconds in the queue without getting the device
	CodeDisconnected  = "disconnected"       // the device went away during the task
	CodeDriver        = "driver_error"       // the driver reported an error
	CodePanic         = "driver_panic"       // the driver panicked; its actor was restarted
	CodeDraining      = "draining"           // the device's node is draining: no new leases or tasks
	CodeQueueFull     = "queue_full"         // the device's queue is at its node's limit (--max-queue); nothing ran
	CodeQuota         = "quota_exceeded"     // the principal holds or queues as much as its policy allows; nothing ran
	CodeInterrupted   = "interrupted"        // the node stopped (crashed, killed) while the task ran
	CodeNotFound      = "not_found"          // the text or image to act on is not on screen; nothing was tapped
	CodeNoVision      = "vision_unavailable" // the tool needs a vision worker and none answers: start corral vision
	CodeCallerGone    = "caller_gone"        // its caller went away while it waited in the queue; nothing ran
	CodeDenied        = "denied"             // the caller's auth policy does not allow it (abort of another principal's queued task); nothing changed
)

// DeviceEntry is one device in the registry bucket.
type DeviceEntry struct {
	V        int               `json:"v"`
	Serial   string            `json:"serial"`
	Platform string            `json:"platform"`
	Model    string            `json:"model,omitempty"`
	Brand    string            `json:"brand,omitempty"`
	Release  string            `json:"release,omitempty"`
	SDK      string            `json:"sdk,omitempty"`
	Tags     []string          `json:"tags,omitempty"`
	Extra    map[string]string `json:"extra,omitempty"`
	Node     string            `json:"node"`
	State    string            `json:"state"`
	Reason   string            `json:"reason,omitempty"` // why unhealthy/offline
	Epoch    uint64            `json:"epoch"`            // lease epoch of the device, fencing stale holders
	Holder   string            `json:"holder,omitempty"`
	Draining bool              `json:"draining,omitempty"` // its node takes no new leases or tasks
	// DrainingSince and DrainingBy: when the node's drain began and who asked for it (corral
	// drain --by, or the operator's user@host), while Draining. Absent from an older node's entries.
	DrainingSince time.Time `json:"draining_since,omitzero"`
	DrainingBy    string    `json:"draining_by,omitempty"`
	// Task is the task the device runs, while it runs (written at most every quarter second):
	// a node that restarts after a crash records it as interrupted.
	Task *RunningTask `json:"task,omitempty"`
	// Queue is who waits for the device, in the order its node would serve them if no one
	// else came: task ids, and lease requests as RequestTag of their id; at most MaxQueueShown,
	// of Queued in all. Absent from an older node's entries: readers then say nothing of places.
	Queue   []string  `json:"queue,omitempty"`
	Queued  int       `json:"queued,omitempty"`
	Updated time.Time `json:"updated"`
}

// Anonymous is the principal of every caller of a gateway without an auth policy.
const Anonymous = "anonymous"

// Holder names who holds or asks: the principal (token owner, "anonymous" without auth), a
// client label (the MCP client's name, a CLI user) and the caller's session.
type Holder struct {
	Principal string `json:"principal"`
	Client    string `json:"client,omitempty"`
	// Session tells apart the MCP sessions of one principal and client (two CI jobs with one
	// token, two corral run processes): each holds its own leases and queues behind the others.
	// It is SessionTag of the MCP session id (never the id, a credential) or, in the protocol
	// revision without sessions, of the client's Corral-Caller header. Empty: a caller with
	// neither, or one from a gateway that did not send it. Quotas stay per principal.
	Session string `json:"session,omitempty"`
}

// SessionTag is the short, non-reversible tag of an MCP session id that Holder.Session
// carries and refusals may show: the id itself goes with the token as a credential.
func SessionTag(sessionID string) string {
	if sessionID == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("corral session tag\x00" + sessionID))
	return hex.EncodeToString(sum[:5])
}

// Is reports whether lease holder h is caller c, who then has the lease already and must not
// queue behind itself: same principal and client, and the same session. A holder without a
// session (granted by a node or gateway that did not carry it) is taken as any session's of
// its principal and client, as before sessions were told apart: a caller must never wait on
// a lease that may be its own.
func (h Holder) Is(c Holder) bool {
	return h.Principal == c.Principal && h.Client == c.Client && (h.Session == c.Session || h.Session == "")
}

// Name is the holder without its session, "principal (client)" ("principal" without a
// client): whom a quota, a policy or a key shared by all of its sessions (get_latest_task
// without a session) is about.
func (h Holder) Name() string {
	if h.Client == "" {
		return h.Principal
	}
	return h.Principal + " (" + h.Client + ")"
}

// String is the holder as every list, refusal, event and record shows it: Name, then its
// session's tag when it has one ("alice (ci) session 1a2b3c4d5e"), so that a user tells apart
// two sessions of one token. It is for people and logs: code compares Holder values (Is, ==).
func (h Holder) String() string {
	if h.Session == "" {
		return h.Name()
	}
	return h.Name() + " session " + h.Session
}

// PrincipalOf is the principal of a holder as String shows it (DeviceEntry.Holder, which is
// only a string): what comes before the first space, as principal names have none (mcp's
// policy). It reads the shown forms of older nodes too ("principal (client)").
func PrincipalOf(shown string) string {
	p, _, _ := strings.Cut(shown, " ")
	return p
}

// Lease is an explicit lease as the owner node keeps it and mirrors it to KV.
type Lease struct {
	V          int       `json:"v"`
	Handle     string    `json:"handle,omitempty"` // secret to the holder; blanked when shown to others
	Serial     string    `json:"serial"`
	Node       string    `json:"node"`
	Holder     Holder    `json:"holder"`
	Epoch      uint64    `json:"epoch"`
	AcquiredAt time.Time `json:"acquired_at"`
	ExpiresAt  time.Time `json:"expires_at"`
	MaxUntil   time.Time `json:"max_until"`
	QueueLen   int       `json:"queue_len"`
	// HandleSHA256 is HandleHash(Handle), kept when the handle is blanked: whoever has a
	// handle can find its lease (release_device without serial); no one can find the handle.
	HandleSHA256 string `json:"handle_sha256,omitempty"`
	// Running, in a busy answer only, is the task the device runs now.
	Running *RunningTask `json:"running,omitempty"`
}

// RunningTask describes the task a device is running, in a busy answer and in the registry.
type RunningTask struct {
	ID      string    `json:"id,omitempty"`
	Tool    string    `json:"tool"`
	Holder  *Holder   `json:"holder,omitempty"` // registry only: a busy answer names the holder already
	Started time.Time `json:"started"`
	// Deadline is the task's own: its tool's default, or the caller's timeout_ms. The task
	// may end sooner; it cannot run past it.
	Deadline time.Time `json:"deadline"`
	// Expected is when the task should end, as its tool tells from its arguments (a sleep's
	// length; running_expected.go), when that is before its deadline; zero: not known.
	Expected time.Time `json:"expected,omitzero"`
	// Implicit: the task runs without a lease (none was acquired), under one that ends with
	// it; the device is free when it ends.
	Implicit bool `json:"implicit,omitempty"`
}

// SameTask says whether r and o are the same task (or both none).
func (r *RunningTask) SameTask(o *RunningTask) bool {
	if r == nil || o == nil {
		return r == o
	}
	return r.ID == o.ID
}

// Public returns the lease without its handle, for anyone but the holder; its HandleSHA256
// stays.
func (l Lease) Public() Lease {
	if l.Handle != "" && l.HandleSHA256 == "" {
		l.HandleSHA256 = HandleHash(l.Handle)
	}
	l.Handle = ""
	return l
}

// HandleHash returns the SHA-256 of a lease handle, in hex. Handles are 128 random bits: the
// hash tells nothing of the handle, and finds the lease of one.
func HandleHash(handle string) string {
	sum := sha256.Sum256([]byte(handle))
	return hex.EncodeToString(sum[:])
}

// TaskRequest asks a node to run one tool call on one device.
type TaskRequest struct {
	V      int             `json:"v"`
	ID     string          `json:"id"`     // assigned by the caller, so it can abort before the answer
	Serial string          `json:"serial"` //
	Tool   string          `json:"tool"`   // the op the node runs (an MCP tool name)
	Args   json.RawMessage `json:"args,omitempty"`
	Lease  string          `json:"lease,omitempty"` // lease handle; empty for an implicit lease
	Holder Holder          `json:"holder"`
	// TimeoutMS overrides the tool's default deadline (0 = default), capped by the node.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// WaitMS is how long the task may wait in the device's queue when another holder has it
	// (0 = refuse at once with busy).
	WaitMS int64 `json:"wait_ms,omitempty"`
	// Progress asks the node to publish progress on ProgressT for this task id.
	Progress bool  `json:"progress,omitempty"`
	Share    Share `json:"share,omitzero"`
	// Probe is a token of the caller's connection: it listens on ProgressT with it in place of
	// a task id for as long as it lives. Before it starts a task that waited in a queue, the
	// node asks there, and runs nothing for a caller gone (no responders). "" (older gateways):
	// not asked.
	Probe string `json:"probe,omitempty"`
}

// Share is what the gateway's policy grants a principal in the nodes' queues (docs/auth.md):
// its weight when principals take turns at a device, and how many places it may hold in one
// node's queues at once.
type Share struct {
	Weight    float64 `json:"weight,omitempty"`     // 0 means 1
	MaxQueued int     `json:"max_queued,omitempty"` // 0 means no limit but the node's --max-queue
}

// TaskResult is the answer to a TaskRequest, and the task record kept in the event stream.
type TaskResult struct {
	V       int    `json:"v"`
	ID      string `json:"id"`
	Serial  string `json:"serial"`
	Node    string `json:"node"`
	Tool    string `json:"tool"`
	Holder  Holder `json:"holder"`
	Outcome string `json:"outcome"`
	Code    string `json:"code,omitempty"`
	Error   string `json:"error,omitempty"`
	// Data is the tool's structured result (JSON object); Text its human summary.
	Data json.RawMessage `json:"data,omitempty"`
	Text string          `json:"text,omitempty"`
	// Image is JPEG bytes for screenshot tools; never written to the event stream.
	Image     []byte `json:"image,omitempty"`
	ImageType string `json:"image_type,omitempty"`
	// Lease tells a refused caller who holds the device (handle blanked) and the queue length.
	Lease *Lease `json:"lease,omitempty"`
	// LeaseEnded says, on a stale_lease refusal of a task's lease, what became of that lease,
	// so a gateway can word the refusal for the lease its caller knows (a group's, a
	// selection's) without parsing Error. Older nodes send none: Error is all there is.
	LeaseEnded *LeaseEnded `json:"lease_ended,omitempty"`
	QueuePos   int         `json:"queue_pos,omitempty"`
	Submitted  time.Time   `json:"submitted"`
	Started    time.Time   `json:"started,omitzero"`
	Finished   time.Time   `json:"finished"`
	AbortedBy  string      `json:"aborted_by,omitempty"`
	LeaseEpoch uint64      `json:"lease_epoch,omitempty"`
	// Secrets are the task's secret argument values (typed text): the caller gets them back,
	// records keep them out (Record, redact.go). Never sent.
	Secrets []string `json:"-"`
	// RecordData, when set, is the Data the record keeps (Record): the caller's Data holds
	// what only the caller may read (a login's session token). Never sent.
	RecordData json.RawMessage `json:"-"`
	// ErrorUnrecorded, when set, is a part of Error only the caller may read (a login
	// endpoint's answer its failure quotes, which may hold a token) and the words the record
	// keeps in its place (Record). Never sent.
	ErrorUnrecorded *Unrecorded `json:"-"`

	// OwnSetup marks an unsupported refusal for what this device lacks by how it was built or
	// set up (an arm rig without a clipboard helper: nodes/device.ErrUnsupported), not for what
	// its driver lacks: other devices of its platform may serve the call. On an unconfigured
	// refusal it marks the node's configuration for this device (no passcode for it:
	// nodes/device.ErrNotConfigured), not for the whole node: its other devices may serve it.
	OwnSetup bool `json:"own_setup,omitempty"`
}

// What became of a lease, as LeaseEnded says: as its lease event says (expired, released by
// its holder, revoked), or LeaseUnknown.
const (
	LeaseExpired  = "expired"
	LeaseReleased = "released"
	LeaseRevoked  = "revoked"
	// LeaseUnknown: the node knows no lease of the device by that handle (never granted for
	// it, ended long ago, or before the node restarted).
	LeaseUnknown = "unknown"
)

// LeaseEnded is what a node knows of a lease it refused a task under: how and when it ended
// (At is zero when What is LeaseUnknown) and who has the device now. It never holds any part
// of the lease's handle: it is kept in task records.
type LeaseEnded struct {
	What   string    `json:"what"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at,omitzero"`
	// Now says who has the device now and until when, in the node's words: "d1 is free now".
	Now string `json:"now,omitempty"`
}

// Progress is one progress report of a running task.
type Progress struct {
	TaskID   string  `json:"task_id"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// AcquireRequest asks for a lease on one device.
type AcquireRequest struct {
	V      int    `json:"v"`
	Serial string `json:"serial"`
	Holder Holder `json:"holder"`
	WaitMS int64  `json:"wait_ms,omitempty"`
	// TTLMS and MaxMS ask for a shorter idle TTL or hard maximum than the node's defaults.
	TTLMS int64 `json:"ttl_ms,omitempty"`
	MaxMS int64 `json:"max_ms,omitempty"`
	Share Share `json:"share,omitzero"`
	// ID names the request, so that a caller who goes away before the answer can withdraw it
	// (ReleaseRequest.Request). A secret of the asker, as a handle is: it is never shown.
	ID string `json:"id,omitempty"`
	// Probe is TaskRequest.Probe for a lease request (with an ID): a node back from a silence
	// asks there, by AcquireProbeID, whether its caller still waits, and grants nothing to one
	// gone. "" (older gateways): refused in that moment.
	Probe string `json:"probe,omitempty"`
}

// ReleaseRequest gives a lease back. Force (operators) releases whoever holds it.
type ReleaseRequest struct {
	V      int    `json:"v"`
	Serial string `json:"serial"`
	Handle string `json:"handle,omitempty"`
	Force  bool   `json:"force,omitempty"`
	By     string `json:"by,omitempty"`
	// Request withdraws the lease request of that AcquireRequest.ID, its caller gone: a
	// queued request leaves the queue, and a lease it was granted is released.
	Request string `json:"request,omitempty"`
}

// LeaseAnswer answers acquire and release.
type LeaseAnswer struct {
	V        int    `json:"v"`
	OK       bool   `json:"ok"`
	Code     string `json:"code,omitempty"`
	Error    string `json:"error,omitempty"`
	Lease    *Lease `json:"lease,omitempty"`
	QueuePos int    `json:"queue_pos,omitempty"`
	// LeaseEnded says, on a stale_lease refusal of a release of a handle, what became of its
	// lease, as on a task's (TaskResult.LeaseEnded): a gateway words it for the lease its
	// caller knows.
	LeaseEnded *LeaseEnded `json:"lease_ended,omitempty"`
}

// AbortRequest cancels the running task of a device, chosen by serial, task id or lease handle.
// All also clears that holder's queued tasks.
type AbortRequest struct {
	V      int    `json:"v"`
	Serial string `json:"serial,omitempty"`
	TaskID string `json:"task_id,omitempty"`
	Lease  string `json:"lease,omitempty"`
	All    bool   `json:"all,omitempty"`
	// Halt also stops the device's machine at once and holds it until it is recovered
	// (emergency_stop; a device.Halter: an arm rig). Devices without one are only aborted.
	Halt bool   `json:"halt,omitempty"`
	By   string `json:"by,omitempty"`
	// Holder is who asks, as a task's holder (By is its String): the node's record of an
	// emergency_stop (Halt) names it, and the halt's reason says it (nodes/device.Stop).
	// Never a token or a lease handle. An older gateway's request has none: By is used.
	Holder *Holder `json:"holder,omitempty"`
	// Tags, when set, limit the abort to devices with at least one of them: the caller's
	// auth policy, so a task id or lease handle cannot reach a device it may not use.
	Tags []string `json:"tags,omitempty"`
	// Principal, when set, is the caller's principal under an auth policy that makes it no
	// operator: a queued task chosen by TaskID is dropped only if that principal sent it, and a
	// running task (chosen by TaskID or Serial, not Lease) is aborted only if that principal
	// sent it or holds the device's lease; otherwise the abort is refused with CodeDenied
	// (docs/auth.md). A task's sender is known at once only to its node (the registry lags).
	// Empty: any caller aborts any (no policy, an operator, an older gateway).
	Principal string `json:"principal,omitempty"`
}

// Covers reports whether the abort may touch a device with these tags.
func (r *AbortRequest) Covers(deviceTags []string) bool {
	return len(r.Tags) == 0 || SharesTag(r.Tags, deviceTags)
}

// SharesTag reports whether a and b have a tag in common.
func SharesTag(a, b []string) bool {
	return slices.ContainsFunc(a, func(t string) bool { return slices.Contains(b, t) })
}

// AbortAnswer says what was cancelled.
type AbortAnswer struct {
	V       int      `json:"v"`
	Aborted []string `json:"aborted"`          // task ids cancelled (running or queued)
	Halted  bool     `json:"halted,omitempty"` // the device's machine was halted (AbortRequest.Halt)
	Error   string   `json:"error,omitempty"`
	Code    string   `json:"code,omitempty"`

	// TimedOut are running tasks the abort found past their deadline, their driver still
	// returning: nothing was left to abort, and they end timed_out.
	TimedOut []string `json:"timed_out,omitempty"`

	// Record is the id of the task record a node keeps of an emergency_stop (Halt): on the
	// device's timeline (corral tasks, get_task_result, the console) with who and when.
	// An older node's answer has none.
	Record string `json:"record,omitempty"`
}

// LeasesAnswer lists the explicit leases of one node, handles blanked.
type LeasesAnswer struct {
	V      int     `json:"v"`
	Leases []Lease `json:"leases"`
}

// Drain actions (DrainRequest.Action).
const (
	DrainStart  = "drain"   // refuse new leases and tasks; what runs finishes
	DrainUndo   = "undrain" // take new work again
	DrainStatus = "status"  // report only
)

// DrainRequest asks a node to drain, undrain, or report how far its drain has got.
type DrainRequest struct {
	V      int    `json:"v"`
	Action string `json:"action"`
	By     string `json:"by,omitempty"` // who asks, recorded in the node event
}

// DrainAnswer is a node's drain state. The node is idle when Running, Leases and Queued are 0.
type DrainAnswer struct {
	V        int       `json:"v"`
	Node     string    `json:"node"`
	Draining bool      `json:"draining"`
	By       string    `json:"by,omitempty"`
	Since    time.Time `json:"since,omitzero"`
	Devices  int       `json:"devices"`
	Running  int       `json:"running"` // tasks running now
	Leases   int       `json:"leases"`  // explicit leases still held
	Queued   int       `json:"queued"`  // the holders' tasks waiting behind their running task
	Refused  int       `json:"refused,omitempty"`
	Code     string    `json:"code,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// Idle says whether nothing runs, is held or waits on the node.
func (a DrainAnswer) Idle() bool { return a.Running == 0 && a.Leases == 0 && a.Queued == 0 }

// Heartbeat is published by every node every HeartbeatInterval.
type Heartbeat struct {
	V       int       `json:"v"`
	Node    string    `json:"node"`
	Boot    string    `json:"boot"` // changes on every node start
	Devices int       `json:"devices"`
	Sent    time.Time `json:"sent"`
}

// Event is a device, lease or node event on the event stream.
type Event struct {
	V      int       `json:"v"`
	Kind   string    `json:"kind"` // device|lease|node
	Serial string    `json:"serial,omitempty"`
	Node   string    `json:"node,omitempty"`
	What   string    `json:"what"` // new state, or granted/released/expired/revoked, or up/lost/down
	Reason string    `json:"reason,omitempty"`
	Holder string    `json:"holder,omitempty"`
	Epoch  uint64    `json:"epoch,omitempty"`
	At     time.Time `json:"at"`
	// HandleSHA256, on a lease's granted event, is HandleHash of its handle (as the lease
	// mirror shows it; never the handle): a node killed while the lease was held ends it when
	// it restarts, and tells the holder, who passes the handle, what became of it.
	HandleSHA256 string `json:"handle_sha256,omitempty"`
}

// SessionDefault is the device an MCP protocol session selected with select_device, and the
// leases acquire_device took in it (their handles, latest last): release_device without a
// lease gives back the one the session holds.
type SessionDefault struct {
	Serial   string   `json:"serial"`
	Platform string   `json:"platform,omitempty"`
	Lease    string   `json:"lease,omitempty"`
	Acquired []string `json:"acquired,omitempty"`
	// Kept are the leases of earlier selections that select_device kept, a task of the caller
	// running there when it switched: release_device finds them as it does Acquired.
	Kept []string `json:"kept,omitempty"`
	// Client is the MCP client's name the session initialized with: a gateway that takes the
	// session up without its initialize (another one, or this one restarted) names the same
	// holder with it.
	Client string `json:"client,omitempty"`
}

// Version returns the payload's wire version (receivers refuse newer ones).
func (r *TaskRequest) Version() int { return r.V }

// Version returns the payload's wire version.
func (r *AcquireRequest) Version() int { return r.V }

// Version returns the payload's wire version.
func (r *ReleaseRequest) Version() int { return r.V }

// Version returns the payload's wire version.
func (r *AbortRequest) Version() int { return r.V }

// Version returns the payload's wire version.
func (r *DrainRequest) Version() int { return r.V }
