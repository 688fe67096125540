package broker

import (
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// writeTaskRecords writes n task records as nodes write them (asynchronous publishes of the
// wire codec's encoding on corral.v1.events.task.<node>.<id>), a device event after every
// fourth, and waits for their acks. A record is the tool sleep, aborted, where rare(i).
func writeTaskRecords(tb testing.TB, s *Stores, from, n int, rare func(int) bool) {
	tb.Helper()
	acked := func() {
		select {
		case <-s.JS.PublishAsyncComplete():
		case <-tb.Context().Done():
			tb.Fatal("records not acknowledged")
		}
	}
	for i := from; i < from+n; i++ {
		if i%1000 == 0 {
			acked() // a few in flight, well below the publisher's limit (it stalls past 4,000)
		}
		r := TaskResult{V: WireVersion, ID: fmt.Sprintf("t_%06d", i), Serial: "d1", Node: "n1", Tool: "tap_xy", Outcome: OutcomeSucceeded,
			Text: "tapped (540, 1200)", Submitted: time.Now(), Started: time.Now(), Finished: time.Now()}
		if rare(i) {
			r.Tool, r.Outcome, r.AbortedBy = "sleep", OutcomeAborted, "t_abort"
		}
		rec := r.Record()
		b, err := rec.AppendJSON(nil)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := s.JS.PublishMsgAsync(&nats.Msg{Subject: fmt.Sprintf(EventTaskT, r.Node, r.ID), Data: b}); err != nil {
			tb.Fatal(err)
		}
		if i%4 == 3 {
			if _, err := s.JS.PublishAsync(fmt.Sprintf(EventDevT, "n1", "d1", StateOnline), []byte(`{"v":1,"kind":"device","what":"online"}`)); err != nil {
				tb.Fatal(err)
			}
		}
	}
	acked()
}

// requestsOf counts the messages fn's queries publish: their NATS requests.
func requestsOf(s *Stores, fn func()) uint64 {
	before := s.JS.Conn().Stats().OutMsgs
	fn()
	return s.JS.Conn().Stats().OutMsgs - before
}

// A filtered query finds a record older than the newest 10,000 (the bound that was fixed and
// silent) in few requests: task records are read a thousand a request, not one. MaxScan cuts
// the scan where told, and says how far back it read; Since starts it at the first record
// stored since.
func TestTaskHistoryReadsInBatches(t *testing.T) {
	s := openStores(t)
	writeTaskRecords(t, s, 0, 20_000, func(i int) bool { return i == 500 })
	var h History
	var err error
	n := requestsOf(s, func() {
		h, err = s.TaskHistory(t.Context(), HistoryQuery{Outcome: OutcomeAborted, Tool: "sleep", Limit: 5})
	})
	if err != nil || len(h.Tasks) != 1 || h.Tasks[0].ID != "t_000500" || !h.Complete || h.Scanned != 20_000 {
		t.Fatalf("the aborted sleep behind 19,499 records: %d tasks, scanned %d, complete %v, %v", len(h.Tasks), h.Scanned, h.Complete, err)
	}
	if n >= 100 {
		t.Fatalf("%d NATS requests to read 20,000 task records: want < 100", n)
	}
	t.Logf("20,000 records read in %d requests", n)

	n = requestsOf(s, func() { h, err = s.TaskHistory(t.Context(), HistoryQuery{Limit: 3}) })
	if err != nil || len(h.Tasks) != 3 || h.Tasks[0].ID != "t_019999" || h.Tasks[2].ID != "t_019997" || n > 3 {
		t.Fatalf("newest three in %d requests: %+v %v", n, h.Tasks, err)
	}

	h, err = s.TaskHistory(t.Context(), HistoryQuery{Outcome: OutcomeAborted, Limit: 5, MaxScan: 10_000})
	if err != nil || len(h.Tasks) != 0 || h.Complete || h.Scanned != 10_000 || h.Oldest.IsZero() {
		t.Fatalf("cut after 10,000: %d tasks, scanned %d, complete %v, oldest %v, %v", len(h.Tasks), h.Scanned, h.Complete, h.Oldest, err)
	}

	since := time.Now()
	writeTaskRecords(t, s, 20_000, 300, func(i int) bool { return i%100 == 0 })
	n = requestsOf(s, func() { h, err = s.TaskHistory(t.Context(), HistoryQuery{Since: since, Limit: 1000}) })
	if err != nil || len(h.Tasks) != 300 || !h.Complete || h.Scanned != 300 || h.Tasks[299].ID != "t_020000" || n > 5 {
		t.Fatalf("the 300 since: %d tasks, scanned %d, complete %v, %d requests, %v", len(h.Tasks), h.Scanned, h.Complete, n, err)
	}
	h, err = s.TaskHistory(t.Context(), HistoryQuery{Since: time.Now().Add(time.Hour)})
	if err != nil || len(h.Tasks) != 0 || !h.Complete || h.Scanned != 0 {
		t.Fatalf("nothing an hour from now: %+v %v", h, err)
	}

	// A stream made without direct gets is still read, a record a request.
	cfg := s.Events.CachedInfo().Config
	cfg.AllowDirect = false
	if _, err := s.JS.UpdateStream(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	h, err = s.TaskHistory(t.Context(), HistoryQuery{Outcome: OutcomeAborted, Limit: 2})
	if err != nil || len(h.Tasks) != 2 || h.Tasks[0].ID != "t_020200" || h.Tasks[1].ID != "t_020100" {
		t.Fatalf("without direct gets: %+v %v", h.Tasks, err)
	}
}

// BenchmarkTaskHistory reads 20,000 task records for a filter only the oldest matches.
func BenchmarkTaskHistory(b *testing.B) {
	s := openStores(b)
	writeTaskRecords(b, s, 0, 20_000, func(i int) bool { return i == 0 })
	var requests uint64
	for b.Loop() {
		requests += requestsOf(s, func() {
			h, err := s.TaskHistory(b.Context(), HistoryQuery{Outcome: OutcomeAborted, Limit: 1})
			if err != nil || len(h.Tasks) != 1 {
				b.Fatal(h.Tasks, err)
			}
		})
	}
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
}
