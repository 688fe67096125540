package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/typo"
)

// unknownNode refuses to forget node when the farm knows nothing of it: no rig calibration or
// epoch floor of it in corral_calibrations, and no node event of it (up, lost, forgotten, …)
// in the event stream. forgetNodeDevices found no device of it in the registry already. A
// typo (--node nope) was told that its devices were dropped and that it no longer showed
// lost, and every gateway logged it forgotten. nil: the farm knows node, forget it.
func unknownNode(ctx context.Context, s *broker.Stores, node string) error {
	keys, err := s.Calibrations.ListKeysFiltered(ctx, node+".>")
	if err != nil {
		return fmt.Errorf("listing node %s's keys in %s: %w", node, broker.CalibrationBucket, err)
	}
	defer func() { _ = keys.Stop() }()
	calibrated := false
	for range keys.Keys() {
		calibrated = true
	}
	if calibrated {
		return nil
	}
	known, err := knownNodes(ctx, s)
	if err != nil {
		return err
	}
	if known[node] {
		return nil
	}
	return fmt.Errorf("node %s: the farm knows no such node (no device of it in %s, no rig calibration in %s, no event of it in %s), "+
		"so nothing was forgotten: check the id%s; `corral devices` lists the nodes' devices", node, broker.RegistryBucket,
		broker.CalibrationBucket, broker.EventStream, nodeHint(node, known))
}

// knownNodes are the ids of the nodes the registry lists devices of or the event stream has
// node events of.
func knownNodes(ctx context.Context, s *broker.Stores) (map[string]bool, error) {
	known := map[string]bool{}
	keys, err := s.Registry.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the devices in %s: %w", broker.RegistryBucket, err)
	}
	defer func() { _ = keys.Stop() }()
	for key := range keys.Keys() {
		if n, _, ok := strings.Cut(key, "."); ok {
			known[n] = true
		}
	}
	info, err := s.Events.Info(ctx, jetstream.WithSubjectFilter(broker.EventNodes))
	if err != nil {
		return nil, fmt.Errorf("reading the nodes' events in %s: %w", broker.EventStream, err)
	}
	prefix := strings.TrimSuffix(broker.EventNodes, "*.*")
	for subject := range info.State.Subjects {
		if n, _, ok := strings.Cut(strings.TrimPrefix(subject, prefix), "."); ok {
			known[n] = true
		}
	}
	return known, nil
}

// nodeHint is the "did you mean" of a node id no node has, among the ids known, or "".
func nodeHint(node string, known map[string]bool) string {
	if near, ok := typo.Nearest(node, slices.Sorted(maps.Keys(known))); ok {
		return fmt.Sprintf(" (did you mean %s?)", near)
	}
	return ""
}
