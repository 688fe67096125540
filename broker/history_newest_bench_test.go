package broker

import (
	"testing"
	"time"
)

// BenchmarkTaskHistoryNewest reads the newest ten of 5,000 task records (corral tasks
// --limit 10), with no filter, a device's, a tool's, and since a minute ago.
func BenchmarkTaskHistoryNewest(b *testing.B) {
	s := openStores(b)
	writeTaskRecords(b, s, 0, 5_000, func(i int) bool { return i%7 == 0 })
	for _, q := range []struct {
		name string
		q    HistoryQuery
	}{
		{"all", HistoryQuery{Limit: 10}},
		{"serial", HistoryQuery{Serial: "d1", Limit: 10}},
		{"tool", HistoryQuery{Tool: "sleep", Limit: 10}},
		{"since", HistoryQuery{Since: time.Now().Add(-time.Minute), Limit: 10}},
	} {
		b.Run(q.name, func(b *testing.B) {
			var requests, read uint64
			for b.Loop() {
				in := s.JS.Conn().Stats().InMsgs
				requests += requestsOf(s, func() {
					h, err := s.TaskHistory(b.Context(), q.q)
					if err != nil || len(h.Tasks) != 10 {
						b.Fatal(len(h.Tasks), err)
					}
				})
				read += s.JS.Conn().Stats().InMsgs - in
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
			b.ReportMetric(float64(read)/float64(b.N), "msgs-in/op")
		})
	}
}
