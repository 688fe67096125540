package broker

import (
	"fmt"
	"slices"
	"time"
)

// NATS least privilege. Every process reaches NATS as one of five roles, each a NATS user with
// subject permissions (user and password, in the server's config or the embedded server's
// options: the simplest thing that gives subject-level limits and works the same for the
// embedded server, a standalone nats-server and the Helm chart):
//
//   - node: serves only its own subjects (corral.v1.node.<id>.> and its micro service's
//     $SRV subjects), writes only its own registry and lease entries (keys <id>.<serial>, see
//     RegistryKey) and its id's claim, publishes its heartbeats, and progress, task records
//     and events under its own id (corral.v1.events.<kind>.<id>.…, corral.v1.progress.<id>.…),
//     and its agent tasks' screenshots (ScreenshotBucket), and its watched devices' frames
//     (corral.v1.frames.<id>.…: no node can show a screen as another's); it watches only its
//     own registry entries, and the stores it writes refuse rollups (kvconfig.go), which
//     would let one write to its own key purge every node's;
//   - gateway: requests node subjects but may not serve them, reads the buckets, writes
//     sessions and lease groups, and (as it reaps lost nodes) registry and lease entries, a
//     device's offline event and a node's lost event; it receives the frames of the screens it
//     watches (the console);
//   - operator: `nats micro ls/info/stats`, `kv get` of devices, leases and lease groups,
//     events, the leases endpoint (read-only, no handles); nothing that changes the farm, and
//     no frames (screens show people's data);
//   - admin: operator plus every node request (drain, release --force, abort, calls), and
//     what the CLI's in-process front door writes: sessions, lease groups, a missing store;
//   - vision: a vision worker (`corral vision`) serves corral.v1.vision.> in the queue group
//     corral-vision only, and its micro service's $SRV subjects; it publishes nothing but its
//     answers. Nodes request it (VisionRequests).
//
// Only gateways and admins may publish requests to node subjects (the leases endpoint aside,
// which carries no principal), so a node can trust the `by` and holder fields of a request: no
// one else can write them. That is why broker/wire.go's By fields are trusted.

// Role is a NATS user's role.
type Role string

// The roles.
const (
	RoleNode     Role = "node"
	RoleGateway  Role = "gateway"
	RoleOperator Role = "operator"
	RoleAdmin    Role = "admin"
	RoleVision   Role = "vision"
)

// Roles lists the roles.
var Roles = []Role{RoleNode, RoleGateway, RoleOperator, RoleAdmin, RoleVision}

// The vision workers' micro service, its queue group and the subjects its endpoints serve:
// the values of package vision (the contract: vision.Service, vision.QueueGroup,
// vision.Prefix), which a test holds equal to these.
const (
	VisionService  = "corral-vision"
	VisionQueue    = "corral-vision"
	VisionRequests = Prefix + ".vision.>"
)

// AnyNode stands for every node id in a node user's permissions: one shared node user, for
// deployments that cannot hand each node its own secret (a Kubernetes DaemonSet).
const AnyNode = "*"

// NodeBucket holds one claim per running node id (NodeClaim), so that a second node with the
// same id refuses to start.
const NodeBucket = "corral_nodes"

// UserName is the NATS user of a role: the role's name, or node-<id> for a node.
func UserName(r Role, node string) string {
	if r == RoleNode && node != AnyNode && node != "" {
		return "node-" + node
	}
	if r == RoleLeaf {
		return LeafUserName(node)
	}
	return string(r)
}

// InboxPrefix is the inbox prefix of a NATS user: its replies arrive under <prefix>.>, which
// only that user may subscribe to, so that no other role reads the answers it gets (lease
// handles among them).
func InboxPrefix(user string) string { return "_INBOX_" + user }

// Permissions are one user's subject permissions, in nats-server's terms: a subject is allowed
// when an allow entry matches it and no deny entry does; an empty allow list allows nothing.
type Permissions struct {
	PublishAllow, PublishDeny     []string
	SubscribeAllow, SubscribeDeny []string
	// AllowResponses lets the user answer requests it received (one reply each), wherever their
	// reply subject points: nodes answer on the requester's inbox, within ResponseWindow.
	AllowResponses bool
	// ResponseWindow is how long after a request its answer may be sent (with AllowResponses;
	// 0 is nats-server's default, 2 minutes).
	ResponseWindow time.Duration
}

// ReplyWindow is how long a node may take to answer a task: the longest a call may wait in a
// device's queue (wait_seconds, at most an hour) plus the longest deadline a tool takes (an
// agent task's two hours), with room to spare. nats-server lets a user answer a request for 2
// minutes by default: the answers of longer tasks were refused, and their callers never heard.
const ReplyWindow = 4 * time.Hour

// stores are the JetStream streams behind Corral's buckets and event stream.
var (
	kvStream   = func(bucket string) string { return "KV_" + bucket }
	allStreams = []string{kvStream(RegistryBucket), kvStream(LeaseBucket), kvStream(SessionBucket), kvStream(NodeBucket), kvStream(CalibrationBucket), EventStream, objStream(ScreenshotBucket),
		kvStream(LeaseGroupBucket)}
	// What an operator may read: the registry, the leases, the lease groups (`corral leases`
	// shows them; their member handles are sealed with the group's handle), the calibrations
	// and the events; not the sessions (a session's selected lease), the claims nor the
	// screenshots (screens show people's data).
	readableStreams = []string{kvStream(RegistryBucket), kvStream(LeaseBucket), kvStream(LeaseGroupBucket), kvStream(CalibrationBucket), EventStream}
	// What a node opens, and may create when it starts first: the stores it writes and its
	// claims' bucket. Not the sessions nor the lease groups, which only gateways and admins
	// use: NATS checks neither a new stream's subjects nor its republish against its creator's
	// permissions, so a node that made one of those first could have it capture (and republish
	// to a subject of the node's) what gateways write and the replies they get, lease handles
	// among them. A gateway's start repairs the stores a node may have made (streams_repair.go).
	nodeStreams = []string{kvStream(RegistryBucket), kvStream(LeaseBucket), kvStream(NodeBucket), kvStream(CalibrationBucket), EventStream, objStream(ScreenshotBucket)}
)

const jsAPI = "$JS.API."

// readStreams are the JetStream API subjects that read streams: info, messages, consumers (a
// watch, `nats sub --stream`), and the flow control and acks of those consumers.
// Every stream's info (its configuration and counts, no data) is readable: opening a store
// reads it. Not the listing nor the deletion of consumers (manageConsumers): an operator that
// could would delete the gateways' watches, and keep their view of the farm stale. Its
// ephemeral consumers go 5 s after it stops listening (nats-server's default); CONSUMER.CREATE
// cannot tell a durable from them (nats.go names ephemerals too), so a durable it makes stays
// until an admin removes it. A stream's ConsumerLimits.InactiveThreshold would bound it, but
// also raises every unnamed-threshold ephemeral (nats.go's KV watches) from 5 s to the limit
// and refuses consumers asking more (`nats stream view` asks an hour): not set.
func readStreams(streams []string) []string {
	out := []string{jsAPI + "INFO", jsAPI + "STREAM.NAMES", jsAPI + "STREAM.LIST"}
	for _, s := range allStreams {
		out = append(out, jsAPI+"STREAM.INFO."+s)
	}
	for _, s := range streams {
		out = append(out,
			jsAPI+"STREAM.MSG.GET."+s,
			jsAPI+"DIRECT.GET."+s, jsAPI+"DIRECT.GET."+s+".>",
			jsAPI+"CONSUMER.CREATE."+s, jsAPI+"CONSUMER.CREATE."+s+".>",
			jsAPI+"CONSUMER.INFO."+s+".>",
			jsAPI+"CONSUMER.MSG.NEXT."+s+".>",
			"$JS.FC."+s+".>", "$JS.ACK."+s+".>")
	}
	return out
}

// manageConsumers are the JetStream API subjects that list and delete the consumers of streams:
// a gateway's and an admin's, whose watches delete their consumers as they stop.
func manageConsumers(streams []string) []string {
	var out []string
	for _, s := range streams {
		out = append(out, jsAPI+"CONSUMER.DELETE."+s+".>", jsAPI+"CONSUMER.NAMES."+s, jsAPI+"CONSUMER.LIST."+s)
	}
	return out
}

// nodeWatchSubjects are the JetStream API subjects of node's watches of its own registry entries
// (NodeWatches: those from before a restart, and a lost node's verdict): each by a consumer of
// its own name (NodeConsumer), which the node creates, pulls from and deletes, and no other. It
// is created by the request whose subject carries its one filter
// (CONSUMER.CREATE.<stream>.<name>.<filter>), the form nats-server holds to its body's filter;
// the other form names its filters in the body, unchecked. A node user shared by every node
// (AnyNode) may do so with any name: NATS permissions match whole subject tokens.
func nodeWatchSubjects(node string) []string {
	s := kvStream(RegistryBucket)
	var out []string
	for _, w := range NodeWatches {
		name := AnyNode
		if node != AnyNode {
			name = NodeConsumer(node, w)
		}
		out = append(out, jsAPI+"CONSUMER.CREATE."+s+"."+name+".$KV."+RegistryBucket+"."+node+".*",
			jsAPI+"CONSUMER.MSG.NEXT."+s+"."+name, jsAPI+"CONSUMER.DELETE."+s+"."+name)
		if node == AnyNode {
			break
		}
	}
	return out
}

// manageStreams are the JetStream API subjects that create and update Corral's stores.
func manageStreams() []string {
	var out []string
	for _, s := range allStreams {
		out = append(out, jsAPI+"STREAM.CREATE."+s, jsAPI+"STREAM.UPDATE."+s)
	}
	return out
}

// createStreams are the JetStream API subjects that create these stores, never change them:
// what a process that may start first needs (a node its nodeStreams, the admin's CLI all of
// them, as it keeps lease groups and sessions as a gateway does), without the right to
// shorten a store's history.
func createStreams(streams []string) []string {
	out := make([]string, 0, len(streams))
	for _, s := range streams {
		out = append(out, jsAPI+"STREAM.CREATE."+s)
	}
	return out
}

// srvSubjects are the nats micro discovery subjects of a service.
func srvSubjects(service string) []string {
	return []string{"$SRV.PING", "$SRV.INFO", "$SRV.STATS", "$SRV.*." + service, "$SRV.*." + service + ".*"}
}

// PermissionsFor returns the permissions of a role; node is the node's id, or AnyNode for a
// user shared by every node. It fails on an unknown role or a node id that is not a token.
func PermissionsFor(r Role, node string) (Permissions, error) {
	inbox := InboxPrefix(UserName(r, node)) + ".>"
	nodeSubjects := Prefix + ".node.*.*" // corral.v1.node.<node>.<endpoint>: requests
	switch r {
	case RoleNode:
		if node != AnyNode && !validToken(node) {
			return Permissions{}, fmt.Errorf("node id %q: use letters, digits, '-' and '_'", node)
		}
		pub := []string{
			fmt.Sprintf(HeartbeatT, node),
			// Progress, task records and events carry the node's id: a node publishes its own
			// and no other node's. JetStream's acks of these publishes come back on its inbox.
			fmt.Sprintf(ProgressT, node, "*"),
			fmt.Sprintf(EventTaskT, node, "*"),
			fmt.Sprintf(EventDevT, node, "*", "*"),
			fmt.Sprintf(EventLeaseT, node, "*", "*"),
			fmt.Sprintf(EventNodeT, node, "*"),
			fmt.Sprintf(FramesT, node, "*"),
			"$KV." + RegistryBucket + "." + node + ".>",
			"$KV." + LeaseBucket + "." + node + ".>",
			"$KV." + NodeBucket + "." + node,
			jsAPI + "DIRECT.GET." + kvStream(NodeBucket) + ".$KV." + NodeBucket + "." + node,
			// Its rigs' calibrations and halts: written under its own keys, read under any node's,
			// so that a rig served under a new node id keeps its halt (nodes/rig_anynode.go).
			// They are no secret: an operator may read them too.
			"$KV." + CalibrationBucket + "." + node + ".>",
			jsAPI + "DIRECT.GET." + kvStream(CalibrationBucket) + ".$KV." + CalibrationBucket + ".*.>",
			// Its own lease events, the last of a kind each: a restart ends the leases of a run killed
			// (nodes/leases_unended.go).
			jsAPI + "DIRECT.GET." + EventStream + "." + fmt.Sprintf(EventLeaseT, node, "*", "*"),
			// Its agent tasks' screenshots. Object subjects carry no node: a reader checks an
			// image against the digest its name carries, in a task record only this node writes.
			"$O." + ScreenshotBucket + ".C.>", "$O." + ScreenshotBucket + ".M.>",
			jsAPI + "DIRECT.GET." + objStream(ScreenshotBucket) + ".$O." + ScreenshotBucket + ".M.>",
			jsAPI + "INFO",
			// The tools that read screens (tap_ocr, tap_cv, peek without a UI tree) ask a vision
			// worker, after asking whether one listens (micro's PING of the vision service).
			VisionRequests, "$SRV.PING." + VisionService,
		}
		for _, s := range nodeStreams {
			pub = append(pub, jsAPI+"STREAM.INFO."+s)
		}
		pub = append(pub, nodeWatchSubjects(node)...)
		pub = append(pub, createStreams(nodeStreams)...) // a node may start first
		sub := append([]string{fmt.Sprintf(NodeGroupT, node) + ".>", fmt.Sprintf(EventNodeT, node, "lost"), inbox}, srvSubjects(NodeService)...)
		// Not its own forgotten event: that clears the node's lost alarm on gateways
		// (node_forgotten.go), and only an admin's `corral devices forget` records it.
		deny := []string{fmt.Sprintf(EventNodeT, "*", NodeForgotten)}
		return Permissions{PublishAllow: pub, PublishDeny: deny, SubscribeAllow: sub, AllowResponses: true, ResponseWindow: ReplyWindow}, nil
	case RoleGateway:
		pub := []string{nodeSubjects,
			"$KV." + SessionBucket + ".>", "$KV." + LeaseGroupBucket + ".>",
			// Reaping a lost node: its devices go offline and its leases are deleted, and the
			// stream is told (reap.go): those two events, no other.
			"$KV." + RegistryBucket + ".>", "$KV." + LeaseBucket + ".>",
			fmt.Sprintf(EventDevT, "*", "*", StateOffline), fmt.Sprintf(EventNodeT, "*", "lost"),
		}
		pub = append(pub, readStreams(allStreams)...)
		pub = append(pub, manageConsumers(allStreams)...)
		pub = append(pub, manageStreams()...)
		// Dropping a principal's oldest session entries beyond --sessions-per-principal
		// (sessions_per_principal.go): a purged subject leaves no marker to count.
		pub = append(pub, jsAPI+"STREAM.PURGE."+kvStream(SessionBucket))
		pub = append(pub, siteReads()...) // a hub's gateways read its sites' stores (sites.go)
		// The farm's secret in the keys of its session ids and cookies (gateway_secret.go).
		pub = append(pub, gatewaySecretSubjects()...)
		return Permissions{PublishAllow: pub,
			SubscribeAllow: []string{Heartbeats, Progresses, Events, Frames, inbox},
			SubscribeDeny:  []string{Prefix + ".node.>"}}, nil
	case RoleOperator:
		pub := append([]string{"$SRV.>", fmt.Sprintf(NodeGroupT, "*") + "." + EndpointLeases}, readStreams(readableStreams)...)
		return Permissions{PublishAllow: pub,
			SubscribeAllow: []string{Events, Heartbeats, inbox},
			SubscribeDeny:  []string{Prefix + ".node.>", "$KV.>", Prefix + ".frames.>"}}, nil
	case RoleAdmin:
		// An admin runs the corral CLI, whose in-process front door calls nodes as a gateway
		// does, keeps lease groups (acquire_device with count > 1, made on a farm's first) and
		// records each session's latest task.
		// It also removes a node stopped for good's offline devices from the registry and its
		// rigs' calibrations, and records it forgotten (corral devices forget), which no node is
		// left to do.
		pub := append([]string{"$SRV.>", nodeSubjects, "$KV." + SessionBucket + ".>", "$KV." + LeaseGroupBucket + ".>",
			"$KV." + RegistryBucket + ".>", "$KV." + CalibrationBucket + ".>", fmt.Sprintf(EventNodeT, "*", NodeForgotten)},
			readStreams(allStreams)...)
		pub = append(pub, manageConsumers(allStreams)...)
		// Its front door bounds a principal's latest tasks and ended marks as a gateway does
		// (one purge keeping the newest: principal_keys.go).
		pub = append(pub, jsAPI+"STREAM.PURGE."+kvStream(SessionBucket))
		pub = append(pub, createStreams(allStreams)...)
		pub = append(pub, gatewaySecretSubjects()...) // its front door keys sessions as a gateway does
		return Permissions{PublishAllow: pub,
			SubscribeAllow: []string{Events, Heartbeats, Progresses, inbox},
			SubscribeDeny:  []string{Prefix + ".node.>", "$KV.>"}}, nil
	case RoleLeaf:
		return LeafPermissions(node) // node is the site
	case RoleVision:
		// Serve the vision endpoints only in the workers' queue group (a plain subscription,
		// which would see every request, is refused), answer them and micro's discovery
		// pings; publish nothing else (an empty allow list: responses only).
		sub := append([]string{VisionRequests + " " + VisionQueue, inbox}, srvSubjects(VisionService)...)
		return Permissions{PublishAllow: []string{}, SubscribeAllow: sub, AllowResponses: true, ResponseWindow: ReplyWindow}, nil
	}
	return Permissions{}, fmt.Errorf("unknown NATS role %q: use one of %v", r, Roles)
}

// User is one NATS user of a Corral farm.
type User struct {
	Name     string
	Password string
	Role     Role
	Node     string // a node user's node id (AnyNode: shared)
}

// FarmUsers returns the users of a farm with these node ids (AnyNode for one shared node
// user), their passwords taken from secret(name).
func FarmUsers(nodes []string, secret func(name string) (string, error)) ([]User, error) {
	var out []User
	add := func(r Role, node string) error {
		name := UserName(r, node)
		if slices.ContainsFunc(out, func(u User) bool { return u.Name == name }) {
			return nil
		}
		pw, err := secret(name)
		if err != nil {
			return err
		}
		out = append(out, User{Name: name, Password: pw, Role: r, Node: node})
		return nil
	}
	for _, r := range []Role{RoleGateway, RoleOperator, RoleAdmin, RoleVision} {
		if err := add(r, ""); err != nil {
			return nil, err
		}
	}
	for _, n := range nodes {
		if n != AnyNode && !validToken(n) {
			return nil, fmt.Errorf("node id %q: use letters, digits, '-' and '_'", n)
		}
		if err := add(RoleNode, n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Permissions returns the user's permissions.
func (u User) Permissions() (Permissions, error) { return PermissionsFor(u.Role, u.Node) }
