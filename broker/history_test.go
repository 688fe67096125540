package broker

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// openStores starts an embedded NATS and opens the stores on it.
func openStores(t testing.TB) *Stores {
	t.Helper()
	return openStoresWith(t, StoreOptions{})
}

// openStoresWith starts an embedded NATS and opens the stores o sizes on it.
func openStoresWith(t testing.TB, o StoreOptions) *Stores {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	s, err := EnsureStores(t.Context(), nc, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Task history reaches back through windows of events, filters, and stops at MaxScan.
func TestTaskHistory(t *testing.T) {
	s := openStores(t)
	publish := func(subject string, v any) {
		b, _ := json.Marshal(v)
		if _, err := s.JS.Publish(t.Context(), subject, b); err != nil {
			t.Fatal(err)
		}
	}
	// 600 task records, 5 events after each; every 100th task is on d-rare and failed.
	for i := range 600 {
		r := TaskResult{V: WireVersion, ID: fmt.Sprintf("t_%04d", i), Serial: "d-busy", Node: "n1", Tool: "tap_xy", Outcome: OutcomeSucceeded}
		if i%100 == 0 {
			r.Serial, r.Outcome = "d-rare", OutcomeFailed
		}
		publish(fmt.Sprintf(EventTaskT, r.Node, r.ID), r)
		for range 5 {
			publish(fmt.Sprintf(EventDevT, "n1", "d-busy", StateOnline), Event{V: WireVersion, Kind: "device", What: StateOnline})
		}
	}
	h, err := s.TaskHistory(t.Context(), HistoryQuery{Limit: 3})
	if err != nil || len(h.Tasks) != 3 || h.Tasks[0].ID != "t_0599" || h.Tasks[2].ID != "t_0597" {
		t.Fatalf("newest three: %+v %v", h, err)
	}
	h, err = s.TaskHistory(t.Context(), HistoryQuery{Serial: "d-rare", Limit: 10})
	if err != nil || len(h.Tasks) != 6 || !h.Complete || h.Tasks[0].ID != "t_0500" || h.Tasks[5].ID != "t_0000" || h.Scanned != 600 {
		t.Fatalf("d-rare's six, newest first: %d tasks, %+v %v", len(h.Tasks), h.Scanned, err)
	}
	h, err = s.TaskHistory(t.Context(), HistoryQuery{Outcome: OutcomeFailed, Limit: 2})
	if err != nil || len(h.Tasks) != 2 || h.Tasks[1].ID != "t_0400" {
		t.Fatalf("two failed: %+v %v", h.Tasks, err)
	}
	h, err = s.TaskHistory(t.Context(), HistoryQuery{Serial: "d-rare", Limit: 10, MaxScan: 150})
	if err != nil || h.Complete || h.Scanned != 150 || len(h.Tasks) != 1 || h.Tasks[0].ID != "t_0500" {
		t.Fatalf("cut off after 150 records: %d tasks, scanned %d, complete %v, %v", len(h.Tasks), h.Scanned, h.Complete, err)
	}
	h, err = s.TaskHistory(t.Context(), HistoryQuery{Since: time.Now().Add(time.Hour), Limit: 10})
	if err != nil || len(h.Tasks) != 0 || !h.Complete {
		t.Fatalf("nothing since an hour from now: %+v %v", h, err)
	}
}

// StoreOptions.Replicas 0 keeps what exists; a single server refuses more than one replica
// with a hint.
func TestStoreReplicas(t *testing.T) {
	s := openStores(t)
	st, err := s.JS.Stream(t.Context(), EventStream)
	if err != nil || st.CachedInfo().Config.Replicas != 1 {
		t.Fatalf("new stream: %v", err)
	}
	nc := s.JS.Conn()
	_, err = EnsureStores(t.Context(), nc, StoreOptions{Replicas: 3})
	if err == nil {
		t.Fatal("3 replicas on one server accepted")
	}
	var api *jetstream.APIError
	if !errors.As(err, &api) {
		t.Fatalf("not a server refusal: %v", err)
	}
	if want := "3 replicas need a NATS cluster of at least 3 JetStream servers"; !strings.Contains(err.Error(), want) {
		t.Fatalf("%v does not say %q", err, want)
	}
	if _, err := EnsureStores(t.Context(), nc, StoreOptions{Replicas: 9}); err == nil {
		t.Fatal("9 replicas accepted")
	}
}
