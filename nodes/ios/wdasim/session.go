package wdasim

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
)

// createSession answers POST /session: the new session replaces any other, as WebDriverAgent
// keeps one. A bundleId capability launches that app first.
func (s *Server) createSession(c *call) (any, error) {
	var req struct {
		Capabilities *struct {
			AlwaysMatch map[string]json.RawMessage   `json:"alwaysMatch"`
			FirstMatch  []map[string]json.RawMessage `json:"firstMatch"`
		} `json:"capabilities"`
	}
	if err := decodeArgs(c, &req); err != nil {
		return nil, errSessionNotCreated(err.Error())
	}
	if req.Capabilities == nil {
		return nil, errSessionNotCreated("'capabilities' is mandatory to create a new session")
	}
	caps := map[string]json.RawMessage{}
	if len(req.Capabilities.FirstMatch) > 0 {
		for k, v := range req.Capabilities.FirstMatch[0] {
			caps[k] = v
		}
	}
	for k, v := range req.Capabilities.AlwaysMatch {
		caps[k] = v
	}
	var bundle string
	if raw, ok := caps["bundleId"]; ok {
		if json.Unmarshal(raw, &bundle) != nil {
			return nil, errSessionNotCreated("the bundleId capability must be a string")
		}
	}
	if bundle != "" {
		var l launch
		if err := decodeLaunch(caps["arguments"], caps["environment"], &l); err != nil {
			return nil, errSessionNotCreated(err.Error())
		}
		if err := s.open(c.ctx, bundle, l); err != nil {
			return nil, errSessionNotCreated(phoneError(err).message)
		}
	}
	sid := newSessionID()
	s.mu.Lock()
	s.sid = sid
	s.mu.Unlock()
	return map[string]any{"sessionId": sid, "capabilities": s.capabilities(bundle)}, nil
}

// getSession answers GET /session/:sid.
func (s *Server) getSession(c *call) (any, error) {
	return map[string]any{"sessionId": c.sid, "capabilities": s.capabilities("")}, nil
}

// deleteSession answers DELETE /session/:sid.
func (s *Server) deleteSession(c *call) (any, error) {
	s.mu.Lock()
	if s.sid == c.sid {
		s.sid = ""
	}
	s.mu.Unlock()
	return nil, nil
}

func (s *Server) capabilities(bundle string) map[string]any {
	caps := map[string]any{"device": "iphone", "sdkVersion": iosVersion, "browserName": "", "CFBundleIdentifier": nil}
	if bundle != "" {
		caps["CFBundleIdentifier"] = bundle
	}
	return caps
}

// newSessionID makes an upper-case UUID, as WebDriverAgent's session ids are.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%X-%X-%X-%X-%X", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
