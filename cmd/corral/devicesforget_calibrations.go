package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// forgottenRigs is what forgetNodeCalibrations did with a gone node's keys in
// corral_calibrations, by rig (the key's serial token).
type forgottenRigs struct {
	removed []string // calibrations removed
	inUse   []string // calibrations kept: another node id serves the rig now and may use it
	halts   []string // halts kept: a rig halted comes back halted under any node id
}

// forgetNodeCalibrations removes a gone node's rig calibrations from corral_calibrations, each
// at the revision it read. It keeps what the node's id still means for a rig that lives on:
// a calibration of a rig another node id registers now (that node reads the latest under any
// id: nodes/rig_anynode.go), and every halt, since a rig halted must come back halted wherever
// it is served again (removing it would unhalt the rig). The node's epoch floor stays too: a
// node started again under the id still grants epochs above its old ones.
func forgetNodeCalibrations(ctx context.Context, s *broker.Stores, node string) (forgottenRigs, error) {
	var out forgottenRigs
	keys, err := s.Calibrations.ListKeysFiltered(ctx, node+".>")
	if err != nil {
		return out, fmt.Errorf("listing node %s's rig calibrations in %s: %w", node, broker.CalibrationBucket, err)
	}
	defer func() { _ = keys.Stop() }() // done by itself once every key is listed
	var calibrations []string
	for key := range keys.Keys() {
		rest := strings.TrimPrefix(key, node+".")
		switch {
		case strings.HasSuffix(rest, ".halt"):
			out.halts = append(out.halts, strings.TrimSuffix(rest, ".halt"))
		case rest == strings.TrimPrefix(broker.EpochFloorKey(node), node+".") || strings.Contains(rest, "."):
			// the epoch floor, or no key a node writes: left as it is
		default:
			calibrations = append(calibrations, rest)
		}
	}
	var errs []error
	for _, rig := range calibrations {
		other, err := servedElsewhere(ctx, s, node, rig)
		if err != nil {
			return out, err
		}
		if other != "" {
			out.inUse = append(out.inUse, fmt.Sprintf("%s (node %s serves it now)", rig, other))
			continue
		}
		key := broker.CalibrationKey(node, rig) // rig is a token already: Token keeps it as it is
		e, err := s.Calibrations.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // removed meanwhile
		}
		if err == nil {
			err = s.Calibrations.Delete(ctx, key, jetstream.LastRevision(e.Revision()))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("calibration of %s not removed from %s: %w; run this again", rig, broker.CalibrationBucket, err))
			continue
		}
		out.removed = append(out.removed, rig)
	}
	slices.Sort(out.removed)
	slices.Sort(out.inUse)
	slices.Sort(out.halts)
	return out, errors.Join(errs...)
}

// servedElsewhere returns a node id other than node under which the registry lists rig (a
// serial's token), "" if none.
func servedElsewhere(ctx context.Context, s *broker.Stores, node, rig string) (string, error) {
	keys, err := s.Registry.ListKeysFiltered(ctx, "*."+rig)
	if err != nil {
		return "", fmt.Errorf("looking for rig %s under other node ids in %s: %w", rig, broker.RegistryBucket, err)
	}
	defer func() { _ = keys.Stop() }()
	other := ""
	for key := range keys.Keys() {
		if n, _, _ := strings.Cut(key, "."); n != node && other == "" {
			other = n
		}
	}
	return other, nil
}

// sayForgottenRigs tells what forgetNodeCalibrations did, in a line each.
func sayForgottenRigs(node string, r forgottenRigs) {
	if len(r.removed) > 0 {
		fmt.Printf("Removed %d rig calibration(s) of node %s from %s: %s; a rig served again is calibrated again (corral arm calibrate SERIAL).\n",
			len(r.removed), node, broker.CalibrationBucket, strings.Join(r.removed, ", "))
	} else {
		fmt.Printf("node %s has no rig calibration to remove in %s.\n", node, broker.CalibrationBucket)
	}
	if len(r.inUse) > 0 {
		fmt.Printf("Kept the calibrations of rigs another node serves now: %s.\n", strings.Join(r.inUse, ", "))
	}
	if len(r.halts) > 0 {
		fmt.Printf("Kept the halts of %s in %s: a rig served again under any node id comes back halted; `corral arm recover SERIAL` there.\n",
			strings.Join(r.halts, ", "), broker.CalibrationBucket)
	}
}
