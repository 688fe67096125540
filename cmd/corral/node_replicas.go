package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// nodeReplicasFlag is corral node's --nats-replicas: the replicas of the stores a node creates.
// A node's NATS user may create the stores it uses but not change them (broker's createStreams),
// so a node never changes those that exist; a gateway's --nats-replicas does.
func (f *flags) nodeReplicasFlag() *int {
	return f.Int("nats-replicas", 0, "JetStream replicas of the Corral stores this node creates when they are missing: 3 on a "+
		"3-server NATS cluster, 1 on a single server; stores that exist keep theirs (corral gateway --nats-replicas changes them); "+
		"0: 1 when creating")
}

// createNodeStores creates, on a connection of its own before the node opens them, the stores
// that are missing, with the replicas and sizes in o; those that exist are left as they are.
// A store whose replicas differ from o's is said once, at WARN: changing it is a gateway's
// part, and a node failing over it would crash-loop. Replicas 0 leaves it all to the node.
func createNodeStores(ctx context.Context, n natsFlags, o broker.StoreOptions, log *slog.Logger) error {
	if o.Replicas == 0 {
		return nil
	}
	if err := checkReplicas(o.Replicas); err != nil {
		return err
	}
	nc, err := connect(ctx, n.connectOptions("corral-stores"), log)
	if err != nil {
		return err
	}
	defer nc.Close()
	o.CreateOnly, o.Node = true, true
	s, err := broker.EnsureStores(ctx, nc, o)
	if err != nil {
		return fmt.Errorf("--nats-replicas %d: %w", o.Replicas, err)
	}
	if differ := otherReplicas(ctx, s, o.Replicas, log); len(differ) > 0 {
		log.Warn("stores keep other replicas than --nats-replicas asks: a node creates missing stores but never changes "+
			"those that exist; a gateway started with the same --nats-replicas changes them",
			"replicas", o.Replicas, "stores", strings.Join(differ, ","))
	}
	return nil
}

// otherReplicas lists the stores whose replicas are not want, as NAME=REPLICAS. A store whose
// status cannot be read is left out: the node opening it says what is wrong.
func otherReplicas(ctx context.Context, s *broker.Stores, want int, log *slog.Logger) []string {
	got := map[string]int{}
	for _, kv := range []jetstream.KeyValue{s.Registry, s.Leases, s.Nodes, s.Calibrations} { // a node opens no sessions
		st, err := kv.Status(ctx)
		if err != nil {
			log.Debug("store replicas unread", "bucket", kv.Bucket(), "err", err)
			continue
		}
		got["KV_"+st.Bucket()] = st.Config().Replicas
	}
	if info := s.Events.CachedInfo(); info != nil {
		got[info.Config.Name] = info.Config.Replicas
	}
	if st, err := s.Screenshots.Status(ctx); err == nil {
		got["OBJ_"+st.Bucket()] = st.Replicas()
	} else {
		log.Debug("store replicas unread", "bucket", broker.ScreenshotBucket, "err", err)
	}
	var out []string
	for name, r := range got {
		if r != want {
			out = append(out, fmt.Sprintf("%s=%d", name, r))
		}
	}
	slices.Sort(out)
	return out
}
