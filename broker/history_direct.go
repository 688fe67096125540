package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Task history is read by JetStream's batched direct get (nats-server 2.11 and later): one
// request answers up to directBatch messages of a subject filter from a sequence on, each with
// how many more match (Nats-Num-Pending), then an end-of-batch status (204). Reading a record
// a request cost a round trip each: 10,000 records took 25 s through a port-forward. nats.go's
// jetstream has no call for it, so the request is made here. An older server ignores the batch
// and answers one message; the reader then goes on one message a request.

const (
	numPendingHeader = "Nats-Num-Pending" // on each message of a batch: how many more match

	directBatch    = 1000    // messages asked for in one request at most
	directMaxBytes = 4 << 20 // and their bytes (the server's default is its max_pending, 64 MiB)
)

// directGet is the request of a direct get (nats-server's JSApiMsgGetRequest).
type directGet struct {
	Seq       uint64     `json:"seq,omitempty"`
	NextFor   string     `json:"next_by_subj,omitempty"`
	Batch     int        `json:"batch,omitempty"`
	MaxBytes  int        `json:"max_bytes,omitempty"`
	StartTime *time.Time `json:"start_time,omitempty"`
}

// directReader reads a stream's messages by direct gets, answered on an inbox of its own.
type directReader struct {
	nc      *nats.Conn
	stream  string
	subject string // $JS.API.DIRECT.GET.<stream>
	sub     *nats.Subscription
}

func newDirectReader(nc *nats.Conn, stream string) (*directReader, error) {
	sub, err := nc.SubscribeSync(nc.NewInbox())
	if err != nil {
		return nil, fmt.Errorf("read %s: subscribe to an inbox: %w", stream, err)
	}
	return &directReader{nc: nc, stream: stream, subject: jsAPI + "DIRECT.GET." + stream, sub: sub}, nil
}

func (d *directReader) close() { _ = d.sub.Unsubscribe() }

// firstSince returns the sequence of the first message on filter stored at or after t; ok is
// false when there is none.
func (d *directReader) firstSince(ctx context.Context, filter string, t time.Time) (seq uint64, ok bool, err error) {
	t = t.UTC()
	var found uint64
	_, err = d.get(ctx, directGet{StartTime: &t, NextFor: filter}, func(m *jetstream.RawStreamMsg, _ uint64) bool {
		found = m.Sequence
		return true
	})
	return found, found > 0, err
}

// read calls each with the messages on filter with sequences in [start, end], oldest first,
// and returns how many the stream holds from start on (to its end, when the first answer
// came). want is about how many the window holds, above how many the stream holds past end
// (0 if unknown): they size the batches, so that few messages past end are sent.
func (d *directReader) read(ctx context.Context, filter string, start, end uint64, want, above int, each func(*jetstream.RawStreamMsg)) (from int, err error) {
	first := true
	for seq := start; seq <= end; {
		batch := min(max(want, 1), directBatch)
		var last uint64
		past := false
		pending, err := d.get(ctx, directGet{Seq: seq, NextFor: filter, Batch: batch, MaxBytes: directMaxBytes}, func(m *jetstream.RawStreamMsg, np uint64) bool {
			if first {
				from, first = int(np)+1, false
			}
			last = m.Sequence
			if m.Sequence > end {
				past = true
				return false
			}
			each(m)
			return true
		})
		if err != nil || past || last == 0 || pending == 0 {
			return from, err
		}
		seq, want = last+1, int(pending)-above
	}
	return from, nil
}

// get sends one direct get and calls each with every message of its answer and how many
// more match after it, until each returns false or the answer ends. It returns how many
// match after the last message sent (0 when the server said none).
func (d *directReader) get(ctx context.Context, req directGet, each func(m *jetstream.RawStreamMsg, pending uint64) bool) (pending uint64, err error) {
	body, err := json.Marshal(req)
	if err != nil {
		return 0, err
	}
	if err := d.nc.PublishRequest(d.subject, d.sub.Subject, body); err != nil {
		return 0, fmt.Errorf("read %s: %w", d.stream, err)
	}
	want := true
	for {
		m, err := d.sub.NextMsgWithContext(ctx)
		if err != nil {
			return 0, fmt.Errorf("read %s from %d: %w (is the NATS server slow or far? --timeout waits longer)", d.stream, req.Seq, err)
		}
		switch status := m.Header.Get("Status"); status {
		case "":
		case "204": // end of batch
			return parseCount(m.Header.Get(numPendingHeader)), nil
		case "404": // no message matches
			return 0, nil
		case "503":
			return 0, fmt.Errorf("read %s: %w (does the stream allow direct gets? nats stream info %s)", d.stream, nats.ErrNoResponders, d.stream)
		default:
			return 0, fmt.Errorf("read %s from %d: status %s %s", d.stream, req.Seq, status, m.Header.Get("Description"))
		}
		r, err := rawStreamMsg(m)
		if err != nil {
			return 0, fmt.Errorf("read %s from %d: %w", d.stream, req.Seq, err)
		}
		np, batched := m.Header[numPendingHeader]
		if want {
			want = each(r, parseCount(firstOf(np)))
		}
		if !batched || req.Batch == 0 {
			// One message is the whole answer: a single get, or an older server's answer to
			// a batch. More may follow it.
			return 1, nil
		}
	}
}

// rawStreamMsg reads a direct get's answer as jetstream.GetMsg returns it.
func rawStreamMsg(m *nats.Msg) (*jetstream.RawStreamMsg, error) {
	seq, err := strconv.ParseUint(m.Header.Get(jetstream.SequenceHeader), 10, 64)
	if err != nil || seq == 0 {
		return nil, fmt.Errorf("answer without a sequence (%q)", m.Header.Get(jetstream.SequenceHeader))
	}
	t, err := time.Parse(time.RFC3339Nano, m.Header.Get(jetstream.TimeStampHeaer))
	if err != nil {
		return nil, fmt.Errorf("message %d: time stamp: %w", seq, err)
	}
	return &jetstream.RawStreamMsg{Subject: m.Header.Get(jetstream.SubjectHeader), Sequence: seq, Header: m.Header, Data: m.Data, Time: t}, nil
}

func parseCount(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

func firstOf(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}
