package wda

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// SessionID returns the session the client uses now, "" before the first call that needs one.
func (c *Client) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sid
}

// session returns the client's session, creating one if it has none.
func (c *Client) session(ctx context.Context) (string, error) {
	if sid := c.SessionID(); sid != "" {
		return sid, nil
	}
	select {
	case c.creating <- struct{}{}:
	case <-ctx.Done():
		return "", c.fail(http.MethodPost, "/session", ctx.Err(), "")
	}
	defer func() { <-c.creating }()
	if sid := c.SessionID(); sid != "" {
		return sid, nil // another call created it while this one waited
	}
	sid, err := c.createSession(ctx)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.sid = sid
	c.mu.Unlock()
	c.log.Info("wda session created", "wda", c.base, "session", sid)
	return sid, nil
}

func (c *Client) createSession(ctx context.Context) (string, error) {
	const route = "/session"
	// No bundleId: the session drives whatever app is in front, as the tools expect.
	args := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{}, "firstMatch": []any{map[string]any{}}}}
	v, envSID, err := c.call(ctx, http.MethodPost, route, route, args)
	if err != nil {
		return "", err
	}
	// W3C puts the id in the value; JSONWP WebDriverAgents only in the envelope.
	var created struct {
		SessionID json.RawMessage `json:"sessionId"`
	}
	if isObject(v) {
		if err := json.Unmarshal(v, &created); err != nil {
			return "", c.named(http.MethodPost, route, fmt.Errorf("%w: the new session: %s", ErrBadAnswer, err))
		}
	}
	sid, err := decodeSessionID(created.SessionID)
	if err != nil {
		return "", c.named(http.MethodPost, route, err)
	}
	if sid == "" {
		sid = envSID
	}
	if sid == "" {
		return "", c.named(http.MethodPost, route, fmt.Errorf("%w: the new session has no id: %s", ErrBadAnswer, snippet(v)))
	}
	return sid, nil
}

// forget drops sid if it is still the client's session, so the next call creates a new one.
func (c *Client) forget(sid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sid == sid {
		c.sid = ""
	}
}

// inSession calls a route under the client's session. When WebDriverAgent does not know the
// session (it restarted), the session is created again and the call retried once: a request
// refused for its session did nothing, so retrying it is safe.
func (c *Client) inSession(ctx context.Context, method, route string, args any) (json.RawMessage, error) {
	if method == http.MethodPost && args == nil {
		args = struct{}{}
	}
	for attempt := 0; ; attempt++ {
		sid, err := c.session(ctx)
		if err != nil {
			return nil, err
		}
		v, _, err := c.call(ctx, method, "/session/"+sid+route, "/session/:sid"+route, args)
		if attempt == 0 && IsInvalidSession(err) {
			c.forget(sid)
			c.log.Info("wda session lost; creating a new one", "wda", c.base, "session", sid, "route", route)
			continue
		}
		return v, err
	}
}

// Close ends the client's session, if it has one. The client stays usable: the next call that
// needs a session creates one.
func (c *Client) Close(ctx context.Context) error {
	sid := c.SessionID()
	if sid == "" {
		return nil
	}
	c.forget(sid)
	_, _, err := c.call(ctx, http.MethodDelete, "/session/"+sid, "/session/:sid", nil)
	if IsInvalidSession(err) {
		return nil // already gone
	}
	return err
}
