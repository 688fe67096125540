package nodes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// A rig is one machine whatever node id serves it: stopped under bench-2 and started again as
// bench-3 (or `corral up --node-id lab1` on a data dir of `local`), it must come back with the
// halt it had, and may use the calibration it had. Its keys carry the node id that wrote them
// (broker.HaltKey), so the node reads the latest of them under any node id: one request, the
// stream's last message of <any node>.<serial>[.halt]. A node's NATS user may read those keys of
// every node (broker.PermissionsFor), not write them.

// anyNodeReadWait bounds that read: users made by a Corral before it may not read other nodes'
// keys, and NATS refuses the request without an answer (the node then reads its own keys).
const anyNodeReadWait = 2 * time.Second

// rigKept is the latest value of a rig's key under any node id.
type rigKept struct {
	node  string // the node id it was written under
	value []byte // nil: none, or deleted (a halt recovered)
}

// latestUnderAnyNode reads the latest write of key (a HaltKey or CalibrationKey made with node
// id "*") under any node id.
func (n *Node) latestUnderAnyNode(ctx context.Context, key string) (rigKept, error) {
	ctx, cancel := context.WithTimeout(ctx, anyNodeReadWait)
	defer cancel()
	stream, err := n.cfg.Stores.JS.Stream(ctx, "KV_"+broker.CalibrationBucket)
	if err != nil {
		return rigKept{}, err
	}
	subject := "$KV." + broker.CalibrationBucket + "." + key
	msg, err := stream.GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return rigKept{}, nil
	}
	if err != nil {
		return rigKept{}, err
	}
	node, _, _ := strings.Cut(strings.TrimPrefix(msg.Subject, "$KV."+broker.CalibrationBucket+"."), ".")
	if op := msg.Header.Get("KV-Operation"); op == "DEL" || op == "PURGE" {
		return rigKept{node: node}, nil
	}
	return rigKept{node: node, value: msg.Data}, nil
}

// loadRigKey returns the latest value of the rig's key under any node id (anyKey, made with "*"),
// or, when that cannot be read, under this node's (ownKey), saying so.
func (n *Node) loadRigKey(ctx context.Context, serial, what, anyKey, ownKey string) (rigKept, error) {
	kept, err := n.latestUnderAnyNode(ctx, anyKey)
	if err == nil {
		return kept, nil
	}
	n.cfg.Log.Warn(fmt.Sprintf("the rig's %s under other node ids could not be read; this node's own only "+
		"(a rig that came from another node id may come back without it; if NATS refused, run corral nats-auth again)", what),
		"serial", serial, "err", err)
	e, err := n.cfg.Stores.Calibrations.Get(ctx, ownKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return rigKept{node: n.cfg.ID}, nil
	}
	if err != nil {
		return rigKept{}, err
	}
	return rigKept{node: n.cfg.ID, value: e.Value()}, nil
}
