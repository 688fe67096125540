package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/corral-farm/corral/broker"
)

// replicasFlag is --nats-replicas of `corral gateway`: how many NATS servers keep a copy of
// Corral's KV buckets and event stream (a node's is nodeReplicasFlag: it may not change stores).
func (f *flags) replicasFlag() *int {
	return f.Int("nats-replicas", 0, "JetStream replicas of Corral's KV buckets and event stream: 3 on a 3-server NATS cluster "+
		"(losing one server loses nothing), 1 on a single server; 0 keeps what the stores have (1 when creating them)")
}

// checkReplicas refuses a --nats-replicas JetStream cannot keep (0: keep what the stores have).
func checkReplicas(replicas int) error {
	if replicas < 0 || replicas > 5 {
		return badValue(fmt.Errorf("--nats-replicas %d: JetStream keeps 1 to 5 replicas (3 on a 3-server cluster; 0: leave the stores as they are)", replicas))
	}
	return nil
}

// applyReplicas creates or updates the stores with the replicas asked for and the retention o
// the process keeps (their sizes), on a connection of its own, before the process opens them;
// 0 changes nothing.
func applyReplicas(ctx context.Context, n natsFlags, replicas int, o broker.StoreOptions, log *slog.Logger) error {
	if replicas == 0 {
		return nil
	}
	if err := checkReplicas(replicas); err != nil {
		return err
	}
	nc, err := connect(ctx, n.connectOptions("corral-stores"), log)
	if err != nil {
		return err
	}
	defer nc.Close()
	o.Replicas, o.Log = replicas, log // the log: a store repaired is said (broker's createOrRepair)
	if _, err := broker.EnsureStores(ctx, nc, o); err != nil {
		return fmt.Errorf("--nats-replicas %d: %w", replicas, err)
	}
	log.Info("stores replicated", "replicas", replicas)
	return nil
}
