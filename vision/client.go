package vision

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
)

// ErrNoWorker says that no vision worker serves the farm (a *PingUnanswered is it too: workers
// listen, none answers).
var ErrNoWorker = errors.New("no vision worker answers in this farm: start one with `corral vision --nats-context DATA/nats/vision.json` " +
	"(the vision role's context, docs/operations.md; `corral up` starts one itself when corral is built with vision: make build-vision)")

// busyBackoff is the pause before asking again when a worker answered busy.
const busyBackoff = 100 * time.Millisecond

// Error is a worker's refusal or failure.
type Error struct {
	Code    string // CodeBadInput or CodeFailed
	Message string
}

func (e *Error) Error() string { return "vision: " + e.Message }

// Client calls the vision workers of a farm through NATS.
type Client struct {
	nc *nats.Conn
	// attempt bounds one try: a worker that dies mid-request never answers, and the request is
	// tried again on another while the caller's deadline allows.
	attempt time.Duration
	workers *workers
	pings   pingReplies // one subscription for the answers to every ping (pingreplies.go)
	log     *slog.Logger
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithLog logs a worker found hung (a warning) and, at debug, why a call waits on a slow or
// hung worker rather than sending it again. Without it the client logs nothing.
func WithLog(log *slog.Logger) ClientOption {
	return func(c *Client) {
		if log != nil {
			c.log = log
		}
	}
}

// NewClient returns a client on nc; attempt bounds each try (0: 20 s).
func NewClient(nc *nats.Conn, attempt time.Duration, opts ...ClientOption) *Client {
	if attempt <= 0 {
		attempt = 20 * time.Second
	}
	c := &Client{nc: nc, attempt: attempt, workers: newWorkers(), log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(c)
	}
	return c
}

// pingBound bounds the ping: any worker that runs answers it at once, so a worker that does
// not answer within it is hung (a stopped process), and the call should not wait its attempt.
const pingBound = 2 * time.Second

// PingUnanswered says that workers listen on the ping but none answered within its bound (a
// hung or stopped worker). It is ErrNoWorker too (errors.Is): no worker answers, and the tools
// answer vision_unavailable at once, with its own words on what to check.
type PingUnanswered struct{ Bound time.Duration }

func (e *PingUnanswered) Error() string {
	return fmt.Sprintf("the vision workers did not answer the ping within %s: a worker is hung or stopped "+
		"(check the `corral vision` process, its /metrics and its logs; a running worker answers at once)", e.Bound)
}

func (e *PingUnanswered) Is(target error) bool { return target == ErrNoWorker }

// Ping says whether a worker listens (nil) or none does (ErrNoWorker), with the micro
// service's own PING: any worker answers it at once, whatever it is busy with, and it costs a
// worker nothing to answer (no image, no metrics). A worker that listens and does not answer
// within pingBound (or the attempt, if shorter) is *PingUnanswered.
func (c *Client) Ping(ctx context.Context) error {
	answered, bound, err := c.survey(ctx, func(map[string]bool) bool { return true })
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return ErrNoWorker
	case len(answered) > 0:
		return nil
	case err != nil:
		return fmt.Errorf("vision: ping the workers: %w", err)
	}
	return &PingUnanswered{Bound: bound}
}

// OCR reads the text of an image.
func (c *Client) OCR(ctx context.Context, req OCRRequest) (OCRResult, error) {
	if err := checkImages(req.Image); err != nil {
		return OCRResult{}, err
	}
	return call[OCRResult](ctx, c, EndpointOCR, req)
}

// Match finds a template in an image.
func (c *Client) Match(ctx context.Context, req MatchRequest) (MatchResult, error) {
	if err := checkImages(req.Image, req.Template); err != nil {
		return MatchResult{}, err
	}
	return call[MatchResult](ctx, c, EndpointMatch, req)
}

// Elements lists a screen's elements.
func (c *Client) Elements(ctx context.Context, req ElementsRequest) (ElementsResult, error) {
	if err := checkImages(req.Image); err != nil {
		return ElementsResult{}, err
	}
	return call[ElementsResult](ctx, c, EndpointElements, req)
}

// Diff tells whether a screen changed between two frames.
func (c *Client) Diff(ctx context.Context, req DiffRequest) (DiffResult, error) {
	if err := checkImages(req.Before, req.After); err != nil {
		return DiffResult{}, err
	}
	return call[DiffResult](ctx, c, EndpointDiff, req)
}

// Annotate draws boxes on an image.
func (c *Client) Annotate(ctx context.Context, req AnnotateRequest) (AnnotateResult, error) {
	if err := checkImages(req.Image); err != nil {
		return AnnotateResult{}, err
	}
	return call[AnnotateResult](ctx, c, EndpointAnnotate, req)
}

// call sends req to endpoint, trying again on another worker when one does not answer within
// an attempt, until ctx ends.
func call[R any](ctx context.Context, c *Client, endpoint string, req any) (R, error) {
	var out R
	data, err := json.Marshal(req)
	if err != nil {
		return out, fmt.Errorf("vision %s: encode the request: %w", endpoint, err)
	}
	var busy *Error // the last busy answer: what the caller learns if the deadline comes
	stillBusy := func(try int) error {
		return fmt.Errorf("%w (still busy at the call's deadline, %d tries)", busy, try)
	}
	for try := 1; ; try++ {
		msg, err := c.request(ctx, endpoint, data)
		switch {
		case errors.Is(err, nats.ErrNoResponders):
			return out, ErrNoWorker
		case errors.Is(err, ErrNoWorker) && ctx.Err() == nil:
			return out, err // the workers' ping went unanswered while this call waited: hung
		case err != nil && ctx.Err() != nil && busy != nil:
			return out, stillBusy(try)
		case err != nil && ctx.Err() != nil:
			return out, fmt.Errorf("vision %s: no answer within the call's deadline (%d tries): %w", endpoint, try, ctx.Err())
		case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, errWorkerGone):
			continue // that worker died, hung or left within the attempt: another may answer
		case err != nil:
			return out, fmt.Errorf("vision %s: %w", endpoint, err)
		}
		if text := msg.Header.Get(micro.ErrorHeader); text != "" {
			e := &Error{Code: msg.Header.Get(micro.ErrorCodeHeader), Message: text}
			if e.Code != CodeBusy {
				return out, e
			}
			// Busy: the queue group may pick another worker, or this one once it has room.
			busy = e
			select {
			case <-ctx.Done():
				return out, stillBusy(try)
			case <-time.After(busyBackoff):
			}
			continue
		}
		if err := json.Unmarshal(msg.Data, &out); err != nil {
			return out, fmt.Errorf("vision %s: the worker's answer does not decode: %w", endpoint, err)
		}
		return out, nil
	}
}
