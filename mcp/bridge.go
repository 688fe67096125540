package mcp

import (
	"bufio"
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
)

// Bridge relays a stdio MCP client to a gateway's streamable HTTP endpoint, message for
// message, whatever the protocol revision: each line read is POSTed; each JSON-RPC message of
// the answer (JSON or an SSE stream) is written as one line.
type Bridge struct {
	URL    string
	Client *http.Client
	Log    *slog.Logger
	// Headers go with every request, e.g. Authorization for a gateway with an auth policy.
	Headers map[string]string
	// Hint, when set, says what the bridge's user can do about a gateway's refusal (an HTTP
	// status of 300 or more, e.g. 401: how to give the bridge a token); "" for nothing.
	Hint func(status int) string

	mu       sync.Mutex
	session  string
	protocol string
	out      sync.Mutex
}

// maxLine bounds one JSON-RPC message read from stdin.
const maxLine = 16 << 20

// Run relays until in ends or ctx is cancelled. Requests run concurrently, so a long tool call
// does not hold up a cancellation sent after it.
func (b *Bridge) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	if b.Client == nil {
		b.Client = http.DefaultClient
	}
	if b.Log == nil {
		b.Log = slog.New(slog.DiscardHandler)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var wg sync.WaitGroup
	defer wg.Wait()
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		msg := append([]byte(nil), line...)
		if isInitialize(msg) {
			// The session and protocol version come from the answer: relay it before the rest.
			b.relay(ctx, msg, out)
			continue
		}
		wg.Go(func() { b.relay(ctx, msg, out) })
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	return nil
}

func isInitialize(msg []byte) bool {
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Method == "initialize"
}

// relay POSTs one message and writes the messages of the answer.
func (b *Bridge) relay(ctx context.Context, msg []byte, out io.Writer) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.URL, bytes.NewReader(msg))
	if err != nil {
		b.fail(out, msg, err)
		return
	}
	for k, v := range b.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	b.mu.Lock()
	if b.session != "" {
		req.Header.Set("Mcp-Session-Id", b.session)
	}
	if b.protocol != "" {
		req.Header.Set("Mcp-Protocol-Version", b.protocol)
	}
	b.mu.Unlock()
	resp, err := b.Client.Do(req)
	if err != nil {
		b.fail(out, msg, err)
		return
	}
	defer resp.Body.Close()
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		b.mu.Lock()
		b.session = s
		b.mu.Unlock()
	}
	if resp.StatusCode == http.StatusAccepted {
		return // a notification or response: nothing comes back
	}
	if resp.StatusCode >= 300 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		err := fmt.Errorf("it answered %s: %s", resp.Status, answerText(body))
		if b.Hint != nil {
			if h := b.Hint(resp.StatusCode); h != "" {
				err = fmt.Errorf("%w; %s", err, h)
			}
		}
		b.fail(out, msg, refusedError{err})
		return
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b.relaySSE(resp.Body, out)
		return
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.fail(out, msg, err)
		return
	}
	b.write(out, body)
}

// relaySSE writes the data of each server-sent event as one message.
func (b *Bridge) relaySSE(r io.Reader, out io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var data bytes.Buffer
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data.Len() > 0 {
				b.write(out, data.Bytes())
				data.Reset()
			}
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if data.Len() > 0 {
		b.write(out, data.Bytes())
	}
}

// write sends one message to stdout, noting the protocol version an initialize answer names.
func (b *Bridge) write(out io.Writer, msg []byte) {
	// stdio frames messages by line: a message must not contain a newline.
	var compact bytes.Buffer
	if json.Compact(&compact, msg) == nil {
		msg = compact.Bytes()
	} else {
		msg = bytes.ReplaceAll(bytes.TrimSpace(msg), []byte("\n"), []byte(" "))
	}
	if len(msg) == 0 {
		return
	}
	var m struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) == nil && m.Result.ProtocolVersion != "" {
		b.mu.Lock()
		b.protocol = m.Result.ProtocolVersion
		b.mu.Unlock()
	}
	b.out.Lock()
	defer b.out.Unlock()
	_, _ = out.Write(append(msg, '\n'))
}

// answerText is the message of a JSON-RPC error answer, else the body as it is.
func answerText(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	return strings.TrimSpace(string(body))
}

// refusedError is a gateway's answer that refuses a request: it was reachable.
type refusedError struct{ error }

// fail answers a request the gateway could not take with a JSON-RPC error.
func (b *Bridge) fail(out io.Writer, msg []byte, err error) {
	b.Log.Warn("relay to gateway failed", "err", err)
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 {
		return // a notification: nobody waits for an answer
	}
	what := "corral gateway unreachable: " // it did not answer
	if errors.As(err, new(refusedError)) {
		what = "the corral gateway refused the request: "
	}
	e, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID,
		"error": map[string]any{"code": -32603, "message": what + err.Error()}})
	b.write(out, e)
}
