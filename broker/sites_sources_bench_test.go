package broker

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker/embedded"
)

// The cost of a re-add (kickSources) at a hub whose event stream holds 100,000 records, beside
// one of an empty stream: nats-server scans the stream backwards for the site's last record,
// under the store's lock. None of the records is the site's, so the scan reads them all: the
// worst case.
func BenchmarkSiteSourceReadd(b *testing.B) {
	for _, records := range []int{0, 100_000} {
		b.Run(fmt.Sprintf("records=%d", records), func(b *testing.B) { benchmarkSiteSourceReadd(b, records) })
	}
}

func benchmarkSiteSourceReadd(b *testing.B, records int) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: b.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	s, err := EnsureStores(b.Context(), nc, StoreOptions{Sites: []string{"paris"}})
	if err != nil {
		b.Fatal(err)
	}
	for i := range records {
		rec := TaskResult{V: 1, ID: fmt.Sprintf("t_%06d", i), Serial: "n9-p1", Node: "n9", Tool: "tap_xy", Outcome: "succeeded",
			Started: time.Now(), Finished: time.Now()}
		data, err := json.Marshal(rec)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.JS.PublishAsync(fmt.Sprintf(EventTaskT, rec.Node, rec.ID), data); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 {
			<-s.JS.PublishAsyncComplete()
		}
	}
	<-s.JS.PublishAsyncComplete()
	st, err := s.JS.Stream(b.Context(), EventStream)
	if err != nil {
		b.Fatal(err)
	}
	if info, err := st.Info(b.Context()); err != nil || info.State.Msgs != uint64(records) {
		b.Fatalf("the stream holds %v records (%v), want %d", info.State.Msgs, err, records)
	}
	for b.Loop() {
		src, err := removeSource(b.Context(), s.JS, EventStream, "paris")
		if err != nil {
			b.Fatal(err)
		}
		if err := addSource(b.Context(), s.JS, EventStream, "paris", src); err != nil {
			b.Fatal(err)
		}
	}
}
