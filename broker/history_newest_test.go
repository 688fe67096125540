package broker

import (
	"fmt"
	"testing"
)

// The newest few task records, with or without a filter, are read without reading much
// more: corral tasks --limit 10 read the newest 256 sequences' records whatever it showed,
// all of each sent however large (a tool's data), to show ten. Counted, not timed: the
// records the query read and the messages NATS delivered for it.
func TestTaskHistoryNewestReadsFewRecords(t *testing.T) {
	s := openStores(t)
	writeTaskRecords(t, s, 0, 5_000, func(i int) bool { return i%7 == 0 }) // a device event after every fourth
	for _, c := range []struct {
		q       HistoryQuery
		newest  string
		atMost  int // records read
		matches int // of 1 in so many records
	}{
		{HistoryQuery{Limit: 10}, "t_004999", 40, 1},
		{HistoryQuery{Limit: 1}, "t_004999", 20, 1},
		{HistoryQuery{Serial: "d1", Limit: 10}, "t_004999", 40, 1},
		{HistoryQuery{Tool: "sleep", Limit: 10}, "t_004998", 150, 7}, // 4998 = 7·714
	} {
		t.Run(fmt.Sprintf("%+v", c.q), func(t *testing.T) {
			var h History
			var err error
			in := s.JS.Conn().Stats().InMsgs
			n := requestsOf(s, func() { h, err = s.TaskHistory(t.Context(), c.q) })
			delivered := s.JS.Conn().Stats().InMsgs - in
			if err != nil || len(h.Tasks) != c.q.Limit || h.Tasks[0].ID != c.newest {
				t.Fatalf("%d tasks, the newest %v: %v", len(h.Tasks), h.Tasks, err)
			}
			if h.Scanned > c.atMost || delivered > uint64(c.atMost)+8 || n > 4 {
				t.Fatalf("the newest %d read %d records (%d messages delivered, %d requests): want at most %d records, 4 requests",
					c.q.Limit, h.Scanned, delivered, n, c.atMost)
			}
			t.Logf("the newest %d: %d records read, %d messages delivered, %d requests", c.q.Limit, h.Scanned, delivered, n)
		})
	}
}
