package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// HistoryQuery chooses task records from the event stream.
type HistoryQuery struct {
	Serial  string    // only this device's tasks ("" for every device)
	Outcome string    // only tasks that ended so ("" for any)
	Tool    string    // only this tool's tasks ("" for any)
	Since   time.Time // none recorded before this
	Limit   int       // at most this many (default 20)
	MaxScan int       // count at most this many task records, the newest (default 10,000)
}

// History is the answer to a HistoryQuery.
type History struct {
	Tasks    []TaskResult // newest first
	Scanned  int          // task records read
	Complete bool         // every record the query could match was read (MaxScan cut none off)
}

// TaskHistory reads task records from the event stream, newest first. Records are found by
// subject (corral.v1.events.task.*) in windows of sequence numbers that grow backwards from the
// stream's end, so recent history costs little however long the stream is; the serial, outcome
// and tool filters are applied to the records read.
func (s *Stores) TaskHistory(ctx context.Context, q HistoryQuery) (History, error) {
	if q.Limit <= 0 {
		q.Limit = 20
	}
	if q.MaxScan <= 0 {
		q.MaxScan = 10_000
	}
	var h History
	info, err := s.Events.Info(ctx)
	if err != nil {
		return h, fmt.Errorf("read stream %s: %w", EventStream, err)
	}
	first, last := info.State.FirstSeq, info.State.LastSeq
	if info.State.Msgs == 0 || last < first {
		h.Complete = true
		return h, nil
	}
	span := uint64(max(4*q.Limit, 256)) // sequences in the next window
	var seqs uint64                     // sequences read so far
	for end := last; ; {
		start := first
		if end-first+1 > span {
			start = end - span + 1
		}
		batch, err := s.readTasks(ctx, start, end)
		if err != nil {
			return h, err
		}
		cut := false
		if rest := q.MaxScan - h.Scanned; len(batch) > rest {
			batch, cut = batch[len(batch)-rest:], true // the newest of the window count
		}
		h.Scanned += len(batch)
		older := false
		for i := len(batch) - 1; i >= 0 && len(h.Tasks) < q.Limit; i-- {
			m := batch[i]
			if !q.Since.IsZero() && m.Time.Before(q.Since) {
				older = true
				break
			}
			var r TaskResult
			if json.Unmarshal(m.Data, &r) != nil || !q.match(r) {
				continue
			}
			h.Tasks = append(h.Tasks, r)
		}
		switch {
		case older || start == first && !cut:
			h.Complete = true
			return h, nil
		case len(h.Tasks) >= q.Limit || cut || h.Scanned >= q.MaxScan:
			return h, nil
		}
		// The next window reaches 4 times as far back, but not much past what MaxScan lets
		// be read at the density of task records met so far.
		seqs += end - start + 1
		span *= 4
		if h.Scanned > 0 {
			perRecord := max(seqs/uint64(h.Scanned), 1)
			span = min(span, max(256, uint64(q.MaxScan-h.Scanned+1)*perRecord))
		}
		end = start - 1
	}
}

func (q HistoryQuery) match(r TaskResult) bool {
	return (q.Serial == "" || r.Serial == q.Serial) && (q.Outcome == "" || r.Outcome == q.Outcome) && (q.Tool == "" || r.Tool == q.Tool)
}

// readTasks reads the task records with sequence numbers in [start, end], oldest first.
func (s *Stores) readTasks(ctx context.Context, start, end uint64) ([]*jetstream.RawStreamMsg, error) {
	var out []*jetstream.RawStreamMsg
	for seq := start; seq <= end; {
		m, err := s.Events.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(EventTasks))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return out, fmt.Errorf("read task records from %s at %d: %w", EventStream, seq, err)
		}
		if m.Sequence > end {
			break
		}
		out = append(out, m)
		seq = m.Sequence + 1
	}
	return out, nil
}
