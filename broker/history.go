package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// DefaultMaxScan is how many task records a history query reads at most unless told: about
// 50 s of a farm running 2,000 tasks a second, read in about 100 requests.
const DefaultMaxScan = 100_000

// HistoryQuery chooses task records from the event stream.
type HistoryQuery struct {
	Serial  string    // only this device's tasks ("" for every device)
	Outcome string    // only tasks that ended so ("" for any)
	Tool    string    // only this tool's tasks ("" for any)
	Since   time.Time // none recorded before this
	Limit   int       // at most this many (default 20)
	MaxScan int       // count at most this many task records, the newest (0: DefaultMaxScan; < 0: all)
}

// History is the answer to a HistoryQuery.
type History struct {
	Tasks    []TaskResult // newest first
	Scanned  int          // task records read
	Complete bool         // every record the query could match was read (MaxScan cut none off)
	Oldest   time.Time    // when the oldest record read was stored (zero if none was)
	// newer counts the records skipped for a newer wire version, the newest of them newerV.
	newer, newerV int
}

// TaskHistory reads task records from the event stream, newest first. Records are found by
// subject (corral.v1.events.task.<node>.<id>, and the task records of an older Corral,
// corral.v1.events.task.<id>) in windows of sequence numbers that go backwards from the
// stream's end, the first sized for Limit records, the next for the records still wanted at
// the density of matches met so far, so recent history costs little however long the stream
// is and the newest few read few more than they show; each window is
// read by batched direct gets (history_direct.go), up to a thousand records a request. The
// serial, outcome and tool filters are applied to the records read. Since starts the scan at
// the first record stored since.
func (s *Stores) TaskHistory(ctx context.Context, q HistoryQuery) (History, error) {
	if q.Limit <= 0 {
		q.Limit = 20
	}
	switch {
	case q.MaxScan == 0:
		q.MaxScan = DefaultMaxScan
	case q.MaxScan < 0:
		q.MaxScan = math.MaxInt
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
	read := s.readTasks
	if info.Config.AllowDirect {
		d, err := newDirectReader(s.JS.Conn(), EventStream)
		if err != nil {
			return h, err
		}
		defer d.close()
		if !q.Since.IsZero() {
			since, ok, err := d.firstSince(ctx, anyEventTasks, q.Since)
			if err != nil || !ok {
				h.Complete = err == nil
				return h, err
			}
			first = max(first, since)
		}
		read = func(ctx context.Context, start, end uint64, want, above int) ([]*jetstream.RawStreamMsg, int, error) {
			var out []*jetstream.RawStreamMsg
			from, err := d.read(ctx, anyEventTasks, start, end, want, above, func(m *jetstream.RawStreamMsg) { out = append(out, m) })
			return out, from, err
		}
	}
	if first > last {
		h.Complete = true
		return h, nil
	}
	// The first window is sized for the newest Limit records at half a record a sequence, so
	// that the common query (the newest few, with or without a filter) reads few more than it
	// shows: a record may be large (a tool's data), and all of a window's are sent.
	span := uint64(2*q.Limit + 16) // sequences in the next window
	var seqs uint64                // sequences read so far
	above := 0                     // task records past the window (from the server's counts)
	for end := last; ; {
		start := first
		if end-first+1 > span {
			start = end - span + 1
		}
		want := int(min(span, directBatch)) // records the window may hold: at most one a sequence
		if h.Scanned > 0 {
			density := float64(h.Scanned) / float64(seqs) // records a sequence so far, a quarter more
			want = int(min(float64(end-start+1)*density*1.25+16, float64(end-start+1), directBatch))
		}
		batch, from, err := read(ctx, start, end, want, above)
		if err != nil {
			return h, err
		}
		above = from
		cut := false
		if rest := q.MaxScan - h.Scanned; len(batch) > rest {
			batch, cut = batch[len(batch)-rest:], true // the newest of the window count
		}
		h.Scanned += len(batch)
		if len(batch) > 0 {
			h.Oldest = batch[0].Time
		}
		older := false
		for i := len(batch) - 1; i >= 0 && len(h.Tasks) < q.Limit; i-- {
			m := batch[i]
			if !q.Since.IsZero() && m.Time.Before(q.Since) {
				older = true
				break
			}
			var r TaskResult
			if DecodeTaskResult(m.Data, &r) != nil || !trustRecord(m.Subject, r) || !q.match(r) {
				continue
			}
			if newerWire(r.V) {
				h.newer, h.newerV = h.newer+1, max(h.newerV, r.V)
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
		// The next window reaches about as far back as the records still wanted need at the
		// density of matches met so far (4 times as far when none matched yet), but not much
		// past what MaxScan lets be read at the density of task records met so far.
		seqs += end - start + 1
		span = nextSpan(span, seqs, len(h.Tasks), q.Limit-len(h.Tasks))
		if h.Scanned > 0 {
			perRecord := max(seqs/uint64(h.Scanned), 1)
			if rest := uint64(q.MaxScan-h.Scanned) + 1; rest <= math.MaxUint64/perRecord {
				span = min(span, max(256, rest*perRecord))
			}
		}
		end = start - 1
	}
}

// nextSpan sizes the window after one of span sequences: seqs were read so far, matched
// records found in them, need more are wanted. A quarter more than the density of matches
// says, and 16, so that a window seldom falls short; at most 4 times the last.
func nextSpan(span, seqs uint64, matched, need int) uint64 {
	if matched == 0 || need <= 0 {
		return span * 4
	}
	perMatch := float64(seqs) / float64(matched)
	return uint64(min(float64(need)*perMatch*1.25+16, float64(span)*4))
}

func (q HistoryQuery) match(r TaskResult) bool {
	return (q.Serial == "" || r.Serial == q.Serial) && (q.Outcome == "" || r.Outcome == q.Outcome) && (q.Tool == "" || r.Tool == q.Tool)
}

// readTasks reads the task records with sequences in [start, end], oldest first, a request
// each: for a stream that allows no direct gets (made so by hand; Corral's allow them).
func (s *Stores) readTasks(ctx context.Context, start, end uint64, _, _ int) ([]*jetstream.RawStreamMsg, int, error) {
	var out []*jetstream.RawStreamMsg
	for seq := start; seq <= end; {
		m, err := s.Events.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(anyEventTasks))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return out, 0, fmt.Errorf("read task records from %s at %d: %w", EventStream, seq, err)
		}
		if m.Sequence > end {
			break
		}
		out = append(out, m)
		seq = m.Sequence + 1
	}
	return out, 0, nil
}

// recordSubject splits a task record's subject into its node and task id; node is "" for the
// subject of an older Corral (corral.v1.events.task.<id>).
func recordSubject(subject string) (node, id string, ok bool) {
	rest, ok := strings.CutPrefix(subject, Prefix+".events.task.")
	if !ok || rest == "" {
		return "", "", false
	}
	node, id, scoped := strings.Cut(rest, ".")
	if !scoped {
		return "", rest, true
	}
	if node == "" || id == "" || strings.Contains(id, ".") {
		return "", "", false
	}
	return node, id, true
}

// trustRecord says whether a task record may be believed: it is the task its subject names,
// run by the node its subject names (the only node whose NATS user may publish there). A
// record on an older Corral's subject names no node and is taken as it is: no node's user may
// publish there any more.
func trustRecord(subject string, r TaskResult) bool {
	node, id, ok := recordSubject(subject)
	return ok && id == r.ID && (node == "" || node == r.Node)
}

// taskRecord reads the record of task id: the last on corral.v1.events.task.*.<id>, or else
// on an older Corral's corral.v1.events.task.<id>. A record its subject does not vouch for
// (trustRecord) is refused, and so is a task with records from two nodes: a node can learn
// another's task id (abort_task without a serial asks every node) and write a record of its
// own under it; the answer says so rather than pick one.
func (s *Stores) taskRecord(ctx context.Context, id string) (TaskResult, error) {
	var res TaskResult
	filter := fmt.Sprintf(EventTaskT, "*", id)
	m, err := s.Events.GetLastMsgForSubject(ctx, filter)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		m, err = s.Events.GetLastMsgForSubject(ctx, fmt.Sprintf(legacyEventTaskT, id))
	}
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return res, fmt.Errorf("task %s: %w (no record yet: it may still wait or run, or its node was lost before recording it; or it never reached a node, or is older than the event stream keeps)", id, ErrNotFound)
	}
	if err != nil {
		return res, fmt.Errorf("read task %s: %w", id, err)
	}
	if err := json.Unmarshal(m.Data, &res); err != nil {
		return res, fmt.Errorf("task %s: record unreadable: %w", id, err)
	}
	if newerWire(res.V) {
		return res, errNewerWire(fmt.Sprintf("task %s's record", id), res.V)
	}
	if !trustRecord(m.Subject, res) {
		return TaskResult{}, fmt.Errorf("task %s: its record on %s names node %q and task %q: not written by the node it names; "+
			"not trusted (look for a node publishing under another's name: nats sub --stream %s %q)", id, m.Subject, res.Node, res.ID, EventStream, filter)
	}
	if node, _, _ := recordSubject(m.Subject); node != "" {
		first, err := s.Events.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(filter))
		if err != nil {
			return TaskResult{}, fmt.Errorf("read task %s: %w", id, err)
		}
		if first.Subject != m.Subject {
			other, _, _ := recordSubject(first.Subject)
			return TaskResult{}, fmt.Errorf("task %s: records from two nodes, %s and %s; one of them wrote a record of a task it did not run, "+
				"so neither is trusted (nats sub --stream %s %q shows them)", id, other, node, EventStream, filter)
		}
	}
	return res, nil
}

// TaskHistory reads task records from the event stream, newest first (Stores.TaskHistory).
func (c *Client) TaskHistory(ctx context.Context, q HistoryQuery) (History, error) {
	h, err := c.stores.TaskHistory(ctx, q)
	if h.newer > 0 {
		c.newer.warn(c.log, "task history", h.newerV, "task records of a newer wire version skipped: upgrade the gateway", "records", h.newer)
	}
	return h, err
}
