package model

import (
	"encoding/json"
	"strings"
)

// minKeyRun is the shortest run of the API key's first characters that is taken out of text:
// a model (or server) that echoes part of the key gives out that much of it; shorter runs are
// common words' letters.
const minKeyRun = 8

// scrubKey replaces key in s with [redacted], and every run of its first minKeyRun or more
// characters too (a model that echoes the key may cut it short, or write on after a prefix).
func scrubKey(s, key string) string {
	if key == "" {
		return s
	}
	head := key[:min(len(key), minKeyRun)]
	if !strings.Contains(s, head) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, head)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		n := len(head)
		for n < len(key) && i+n < len(s) && s[i+n] == key[n] {
			n++
		}
		b.WriteString(s[:i])
		b.WriteString(redacted)
		s = s[i+n:]
	}
}

// scrubAnswer takes the key out of what the model wrote (its text and its tool calls'
// arguments), as out of a server's error: it goes on into reports, records and events.
func (c *Client) scrubAnswer(resp Response) Response {
	key := c.cfg.APIKey.Reveal()
	if key == "" {
		return resp
	}
	resp.Text = scrubKey(resp.Text, key)
	for i, tc := range resp.ToolCalls {
		// [redacted] needs no escaping: the arguments stay the JSON they were.
		resp.ToolCalls[i].Arguments = json.RawMessage(scrubKey(string(tc.Arguments), key))
	}
	return resp
}

// Scrub takes the API key out of text the model wrote, as Chat does of its answer: for its
// text streamed piece by piece (OnDelta), once the pieces are put together.
func (c *Client) Scrub(s string) string { return scrubKey(s, c.cfg.APIKey.Reveal()) }
