package wda

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// Client talks to one WebDriverAgent. It is safe for concurrent use.
type Client struct {
	base    string
	hc      *http.Client
	log     *slog.Logger
	maxBody int64

	// creating admits one session creation at a time; a channel, so a caller waiting for it
	// still honours its ctx.
	creating chan struct{}
	mu       sync.Mutex
	sid      string // the session this client uses; "" until the first call that needs one

	legacyTap atomic.Bool // the WebDriverAgent knows /wda/tap/:uuid only
}

// Option configures a Client.
type Option func(*Client)

// WithLogger logs session creations and re-creations to l (nothing is logged without it).
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.log = l
		}
	}
}

// New returns a client of the WebDriverAgent at base, e.g. "http://wda": hc's transport decides
// where that connects (through usbmuxd to the phone's port 8100 in production). A nil hc is a
// plain http.Client; give one with a transport anyway, as only ctx bounds a call.
func New(base string, hc *http.Client, opts ...Option) *Client {
	if hc == nil {
		hc = &http.Client{}
	}
	c := &Client{
		base:     strings.TrimRight(base, "/"),
		hc:       hc,
		log:      slog.New(slog.DiscardHandler),
		maxBody:  MaxResponse,
		creating: make(chan struct{}, 1),
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// call does one request and returns the answer's value and session id. route names the request
// in errors: the path, with the session id written as :sid. A nil args sends no body.
func (c *Client) call(ctx context.Context, method, path, route string, args any) (json.RawMessage, string, error) {
	var body io.Reader
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, "", c.fail(method, route, fmt.Errorf("encoding the request: %w", err), "")
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, "", c.fail(method, route, err, "the base URL must be like http://wda")
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", c.fail(method, route, ctx.Err(), "")
		}
		return nil, "", c.fail(method, route, err, "is WebDriverAgent running on the phone, and its port 8100 reachable?")
	}
	defer resp.Body.Close()
	data, err := c.read(resp)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", c.fail(method, route, ctx.Err(), "")
		}
		return nil, "", c.fail(method, route, err, hintFor(err))
	}
	v, sid, err := decodeEnvelope(resp.StatusCode, data)
	if err != nil {
		return nil, "", c.fail(method, route, err, hintFor(err))
	}
	return v, sid, nil
}

// read reads a whole body of at most c.maxBody bytes.
func (c *Client) read(resp *http.Response) ([]byte, error) {
	if resp.ContentLength > c.maxBody {
		return nil, fmt.Errorf("%w: the answer is %d bytes, more than the %d allowed", ErrBadAnswer, resp.ContentLength, c.maxBody)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer (HTTP %d): %w", resp.StatusCode, err)
	}
	if int64(len(data)) > c.maxBody {
		return nil, fmt.Errorf("%w: the answer is more than the %d bytes allowed", ErrBadAnswer, c.maxBody)
	}
	return data, nil
}

// fail wraps err with the server, the route and a hint.
func (c *Client) fail(method, route string, err error, hint string) error {
	if hint == "" || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("wda %s: %s %s: %w", c.base, method, route, err)
	}
	return fmt.Errorf("wda %s: %s %s: %w; %s", c.base, method, route, err, hint)
}

// get and post call a route that needs no session.
func (c *Client) get(ctx context.Context, route string) (json.RawMessage, error) {
	v, _, err := c.call(ctx, http.MethodGet, route, route, nil)
	return v, err
}

func (c *Client) post(ctx context.Context, route string, args any) (json.RawMessage, error) {
	if args == nil {
		args = struct{}{} // WebDriverAgent reads a JSON body on every POST
	}
	v, _, err := c.call(ctx, http.MethodPost, route, route, args)
	return v, err
}

// named wraps a decoding error with the route it came from.
func (c *Client) named(method, route string, err error) error {
	if err == nil {
		return nil
	}
	return c.fail(method, route, err, hintFor(err))
}
