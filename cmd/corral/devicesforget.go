package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes"
)

// devicesForgetLine is the usage line of corral devices forget.
const devicesForgetLine = "corral devices forget --node ID [--timeout D]"

// runDevicesForget removes a decommissioned node's devices from the registry and its rigs'
// calibrations, and records it forgotten, so that the gateways stop showing it lost: a node
// stopped for good leaves its devices offline there until a node with its id starts again,
// and nothing else removes them. It talks to NATS with the admin's context (no gateway tool
// offers it), and refuses while the node runs (its id is claimed) or while one of its devices
// is anything but offline or still has a lease: those are a node at work, not one gone.
func runDevicesForget(ctx context.Context, args []string) error {
	a := newAdminFlags("devices forget", 30*time.Second, "refused: devices forget talks to NATS directly, with the admin's NATS context "+
		"(--nats-context DATA/nats/admin.json or $NATS_CONTEXT); no gateway tool removes devices, so that an agent's token cannot")
	node := a.String("node", "", "the node id whose devices to remove (a node stopped for good)")
	a.Usage = commandUsage(a.flags, devicesForgetLine, summary("devices forget"))
	check := func() error {
		if a.NArg() != 0 || *node == "" {
			return fmt.Errorf("usage: %s", devicesForgetLine)
		}
		if !nodes.ValidID(*node) {
			return badValue(fmt.Errorf("--node %q: give a node id (letters, digits, '-' and '_'), as `corral devices` shows it", *node))
		}
		return a.needsNATS("devices forget (removing a node's devices from the registry)", notForAgents, "")
	}
	if stop, err := a.startArgs(args, check, always); err != nil || stop {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *a.timeout)
	defer cancel()
	nc, stores, _, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer nc.Close()
	removed, err := forgetNodeDevices(ctx, nc, stores, *node)
	if err != nil {
		return a.gaveUp(ctx, "node "+*node+"'s devices not all removed", err)
	}
	if len(removed) == 0 {
		if err := unknownNode(ctx, stores, *node); err != nil {
			return a.gaveUp(ctx, "node "+*node+" not looked up", err)
		}
		fmt.Printf("node %s has no device in the registry (%s): nothing to remove; `corral devices` lists the nodes' devices.\n", *node, broker.RegistryBucket)
	} else {
		fmt.Printf("Removed %d offline device(s) of node %s from the registry (%s): %s.\n", len(removed), *node, broker.RegistryBucket, strings.Join(removed, ", "))
	}
	rigs, err := forgetNodeCalibrations(ctx, stores, *node)
	sayForgottenRigs(*node, rigs)
	if err != nil {
		return a.gaveUp(ctx, "node "+*node+"'s rig calibrations not all removed", err)
	}
	if err := broker.RecordNodeForgotten(ctx, stores.JS, *node, operatorName("")); err != nil {
		return a.gaveUp(ctx, "node "+*node+" not recorded forgotten", fmt.Errorf("%w; the gateways still show it lost: run this again", err))
	}
	fmt.Printf("The gateways drop its devices at once, and no longer show node %s lost (CorralNodeLost clears). "+
		"A node started again as %s adds its devices back.\n", *node, *node)
	return nil
}

// forgetNodeDevices deletes node's registry entries, each at the revision it read (an entry
// the node rewrote meanwhile stays, and says so), and returns the serials removed. It removes
// nothing while the node runs (it holds its id's claim, or beats), or while a device is not
// offline or has a lease entry.
func forgetNodeDevices(ctx context.Context, nc *nats.Conn, s *broker.Stores, node string) ([]string, error) {
	running := fmt.Errorf("node %s is running: stop it first (`corral drain %s --wait`, then its process); a node killed is gone within %s",
		node, node, broker.LostAfter)
	switch _, err := s.Nodes.Get(ctx, node); {
	case err == nil:
		return nil, fmt.Errorf("%w (it holds its id in %s)", running, broker.NodeBucket)
	case !errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, fmt.Errorf("reading node %s's claim in %s: %w", node, broker.NodeBucket, err)
	}
	switch beating, err := nodeBeats(ctx, nc, node); {
	case err != nil:
		return nil, err
	case beating:
		return nil, fmt.Errorf("%w (its heartbeats go on)", running)
	}
	type entry struct {
		key, serial string
		revision    uint64
	}
	var found []entry
	var busy []string
	keys, err := s.Registry.ListKeysFiltered(ctx, node+".>")
	if err != nil {
		return nil, fmt.Errorf("listing node %s's devices in %s: %w", node, broker.RegistryBucket, err)
	}
	defer func() { _ = keys.Stop() }() // done by itself once every key is listed
	for key := range keys.Keys() {
		e, err := s.Registry.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s in %s: %w", key, broker.RegistryBucket, err)
		}
		var d broker.DeviceEntry
		if err := json.Unmarshal(e.Value(), &d); err != nil || !broker.CheckEntryKey(key, d) {
			d = broker.DeviceEntry{Serial: key, State: broker.StateOffline} // not a device entry of its: it goes too
		}
		_, err = s.Leases.Get(ctx, key)
		switch {
		case err == nil:
			busy = append(busy, fmt.Sprintf("%s has a lease (held by %s)", d.Serial, cmpHolder(d.Holder)))
		case !errors.Is(err, jetstream.ErrKeyNotFound): // unknown is not free
			return nil, fmt.Errorf("reading %s's lease in %s: %w; nothing removed, run this again", d.Serial, broker.LeaseBucket, err)
		case d.State != broker.StateOffline:
			busy = append(busy, fmt.Sprintf("%s is %s", d.Serial, d.State))
		}
		found = append(found, entry{key: key, serial: d.Serial, revision: e.Revision()})
	}
	if len(busy) > 0 {
		slices.Sort(busy)
		return nil, fmt.Errorf("node %s's devices are not all offline and free: %s; nothing removed. A node gone is shown offline within %s "+
			"(`corral devices --node %s`); `corral release SERIAL --force` ends a lease", node, strings.Join(busy, "; "), broker.LostAfter, node)
	}
	var removed []string
	var errs []error
	for _, f := range found {
		if err := s.Registry.Delete(ctx, f.key, jetstream.LastRevision(f.revision)); err != nil {
			errs = append(errs, fmt.Errorf("%s not removed: %w (it changed since it was read: is node %s back? run this again)", f.serial, err, node))
			continue
		}
		removed = append(removed, f.serial)
	}
	slices.Sort(removed)
	return removed, errors.Join(errs...)
}

// cmpHolder is a holder as said in a refusal: unknown when the entry names none.
func cmpHolder(h string) string {
	if h == "" {
		return "an unknown holder"
	}
	return h
}

// nodeBeats says whether node publishes heartbeats, listening for three of them at most: a
// node that runs beats every HeartbeatInterval, whether or not it claimed its id.
func nodeBeats(ctx context.Context, nc *nats.Conn, node string) (bool, error) {
	sub, err := nc.SubscribeSync(fmt.Sprintf(broker.HeartbeatT, node))
	if err != nil {
		return false, fmt.Errorf("listening for node %s's heartbeats: %w", node, err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	listen, cancel := context.WithTimeout(ctx, 3*broker.HeartbeatInterval)
	defer cancel()
	if _, err := sub.NextMsgWithContext(listen); err == nil {
		return true, nil
	}
	return false, ctx.Err() // nil: none came
}
