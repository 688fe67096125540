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

	"github.com/corral-farm/corral/internal/httpsent"
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
	calls    calls
}

// maxLine bounds one JSON-RPC message read from stdin.
const maxLine = 16 << 20

// Run relays until in ends or ctx is cancelled: then it returns once the requests in flight
// are answered (cancelled with ctx), though in stays open. Requests run concurrently, so a
// long tool call does not hold up a cancellation sent after it. A line that is no JSON-RPC message (not JSON,
// an empty batch, longer than 16 MiB) gets its JSON-RPC error here, and the next line is read.
func (b *Bridge) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	if b.Client == nil {
		b.Client = http.DefaultClient
	}
	if b.Log == nil {
		b.Log = slog.New(slog.DiscardHandler)
	}
	lines, stop := readLines(in)
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var next stdinLine
		select {
		case <-ctx.Done():
			// A signal: the requests in flight end with ctx, and are answered; stdin may
			// stay open, and is read no more.
			b.Log.Debug("the bridge stops", "err", ctx.Err())
			return nil
		case next = <-lines:
		}
		line, over, err := next.line, next.over, next.err
		if over != nil {
			b.Log.Warn("a message over the size limit was not relayed", "bytes", over.size, "limit", maxLine)
			b.answer(out, over.id, codeInvalidRequest, fmt.Sprintf("request too large: a line of %d bytes, over the %d MiB "+
				"that corral mcp-stdio takes; it was not sent: send less in one request", over.size, maxLine>>20))
		}
		if msg := bytes.TrimSpace(line); len(msg) > 0 && b.valid(msg, out) {
			msg = append([]byte(nil), msg...)
			end := b.calls.track(msg)
			if isInitializeLine(msg) {
				// The session and protocol version come from the answer: relay it before the rest.
				b.relay(ctx, msg, out)
				end()
			} else {
				wg.Go(func() { b.relay(ctx, msg, out); end() })
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
	}
}

// valid says whether msg is a JSON-RPC message to relay: an object, or a batch of something.
// Otherwise it answers the error, with id null: nothing in msg can be trusted as an id.
func (b *Bridge) valid(msg []byte, out io.Writer) bool {
	if !json.Valid(msg) {
		detail := "not JSON"
		if err := json.Unmarshal(msg, new(json.RawMessage)); err != nil {
			detail = err.Error()
		}
		b.Log.Warn("a line that is not JSON was not relayed", "err", detail)
		b.answer(out, nil, codeParseError, "parse error: the line is not JSON ("+detail+"); each line must be one JSON-RPC message")
		return false
	}
	switch msg[0] {
	case '{':
		return true
	case '[':
		if bytes.TrimSpace(msg[1:])[0] != ']' {
			return true
		}
		b.answer(out, nil, codeInvalidRequest, "invalid request: an empty batch ([]); a batch holds at least one message")
	default:
		b.answer(out, nil, codeInvalidRequest, "invalid request: a JSON-RPC message is an object, e.g. "+
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+", got "+lineKind(msg))
	}
	b.Log.Warn("a line that is no JSON-RPC message was not relayed")
	return false
}

// lineKind names the kind of a JSON value, for an error message.
func lineKind(v []byte) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// answer writes a JSON-RPC error answer for id (nil: null).
func (b *Bridge) answer(out io.Writer, id json.RawMessage, code int, message string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	type rpcErr struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	e, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcErr          `json:"error"`
	}{"2.0", id, rpcErr{code, message}})
	b.write(out, e)
}

func isInitializeLine(msg []byte) bool {
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Method == "initialize"
}

// relay POSTs one message and writes the messages of the answer.
func (b *Bridge) relay(ctx context.Context, msg []byte, out io.Writer) {
	// Whether the request went out decides what a failure tells the agent: nothing ran, or
	// the call may have run. Each attempt of the transport (a retry on a new connection)
	// starts unsent.
	ctx, sent := httpsent.Trace(ctx)
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
	for k, v := range modernHeaders(msg) { // a message of the revision without sessions says its own
		req.Header.Set(k, v)
	}
	resp, err := b.Client.Do(req)
	if err != nil {
		if sent.Load() {
			err = sentError{err: err}
		}
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
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		// From 2026-07-28 a JSON-RPC error comes with an HTTP status of its own (method not
		// found: 404, invalid params: 400): the answer to the request, not a refusal of it.
		if isAnswerTo(body, msg) {
			b.write(out, body)
			return
		}
		err := fmt.Errorf("it answered %s: %s", resp.Status, answerText(body))
		if b.Hint != nil {
			if h := b.Hint(resp.StatusCode); h != "" {
				err = fmt.Errorf("%w; %s", err, h)
			}
		}
		b.fail(out, msg, refusedError{err, answerError(body)})
		return
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		answered, err := b.relaySSE(resp.Body, out)
		// A stream cut before its answer (the gateway stopped, the network failed) would
		// leave the agent waiting for ever: its requests are answered with an error.
		if rest := unanswered(msg, answered); rest != nil {
			b.fail(out, rest, sentError{err: err, stream: true})
		}
		return
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.fail(out, msg, sentError{err: err})
		return
	}
	b.write(out, body)
}

// relaySSE writes the data of each server-sent event as one message. It returns the ids of
// the answers it wrote and why the stream ended (nil: its end).
func (b *Bridge) relaySSE(r io.Reader, out io.Writer) (answered map[string]bool, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	answered = map[string]bool{}
	var data bytes.Buffer
	send := func() {
		if id, ok := answeredID(data.Bytes()); ok {
			answered[id] = true
		}
		b.write(out, data.Bytes())
		data.Reset()
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data.Len() > 0 {
				send()
			}
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if data.Len() > 0 {
		send()
	}
	return answered, sc.Err()
}

// answeredID is the id of a JSON-RPC answer (a result or an error), compacted.
func answeredID(msg []byte) (string, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 || (len(m.Result) == 0 && len(m.Error) == 0) {
		return "", false
	}
	return compactID(m.ID), true
}

func compactID(id json.RawMessage) string {
	var c bytes.Buffer
	if json.Compact(&c, id) != nil {
		return string(id)
	}
	return c.String()
}

// unanswered is msg (one message or a batch) cut down to its requests not in answered, nil
// when every request was answered.
func unanswered(msg []byte, answered map[string]bool) []byte {
	var batch []json.RawMessage
	isBatch := json.Unmarshal(msg, &batch) == nil
	if !isBatch {
		batch = []json.RawMessage{msg}
	}
	var rest []json.RawMessage
	for _, m := range batch {
		if id, ok := requestID(m); ok && !answered[compactID(id)] {
			rest = append(rest, m)
		}
	}
	switch {
	case len(rest) == 0:
		return nil
	case isBatch:
		b, _ := json.Marshal(rest)
		return b
	}
	return rest[0]
}

// sentError is a failure after the request was sent, before its answer: the call may have
// run. stream says the answer's event stream ended (err nil: at its end) before the answer.
type sentError struct {
	err    error
	stream bool
}

func (e sentError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return "the stream ended"
}

func (e sentError) Unwrap() error { return e.err }

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
	if b.calls.dropped(msg) {
		b.Log.Debug("the answer to a request its client cancelled was not relayed")
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

// refusedError is a gateway's answer that refuses a request: it was reachable. rpc is the
// JSON-RPC error its body carried, nil when the body was none.
type refusedError struct {
	error
	rpc *gatewayError
}

// gatewayError is the error object of a gateway's JSON-RPC answer.
type gatewayError struct {
	Code int             `json:"code"`
	Data json.RawMessage `json:"data"`
}

// answerError is the error of a body that is a JSON-RPC error answer ("jsonrpc" and an error
// with a code), nil for any other body: its code (e.g. -32022, an unsupported
// Mcp-Protocol-Version) and data (the versions supported) tell a client what to do.
func answerError(body []byte) *gatewayError {
	var m struct {
		JSONRPC string `json:"jsonrpc"`
		Error   *struct {
			Code *int            `json:"code"`
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil || m.JSONRPC == "" || m.Error == nil || m.Error.Code == nil {
		return nil
	}
	return &gatewayError{Code: *m.Error.Code, Data: m.Error.Data}
}

// fail answers a request the gateway could not take with a JSON-RPC error: each request of
// msg (one, or those of a batch) by its id. A notification or a response gets none: nobody
// waits for an answer; a message that is neither gets one with id null. The error's code is
// Internal error, or the one of the gateway's JSON-RPC answer, with its data. Its message
// says whether the request was sent (a sentError): then the call may have run.
func (b *Bridge) fail(out io.Writer, msg []byte, err error) {
	b.Log.Warn("relay to gateway failed", "err", err)
	what := "corral gateway unreachable (the request was not sent: nothing ran): "
	rpc := gatewayError{Code: -32603}
	if sent := (sentError{}); errors.As(err, &sent) {
		what = "the connection to the corral gateway failed after the request was sent, before its answer"
		if sent.stream {
			what = "the corral gateway's answer stream ended before the answer"
		}
		what += "; the call may have run on the device: check get_latest_task {\"anyTool\": true} (or get_task_result) before calling again: "
	}
	if refused := (refusedError{}); errors.As(err, &refused) {
		what = "the corral gateway refused the request: "
		if refused.rpc != nil {
			rpc = *refused.rpc
		}
	}
	var batch []json.RawMessage
	if json.Unmarshal(msg, &batch) != nil {
		batch = []json.RawMessage{msg}
	}
	var answers []json.RawMessage
	for _, m := range batch {
		id, ok := requestID(m)
		if !ok {
			continue
		}
		e, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": rpc.with(what + err.Error())})
		answers = append(answers, e)
	}
	switch {
	case len(answers) == 0:
	case msg[0] == '[':
		all, _ := json.Marshal(answers)
		b.write(out, all)
	default:
		b.write(out, answers[0])
	}
}

// with is the error object answering with message.
func (e gatewayError) with(message string) map[string]any {
	obj := map[string]any{"code": e.Code, "message": message}
	if len(e.Data) > 0 && string(e.Data) != "null" {
		obj["data"] = e.Data
	}
	return obj
}

// requestID is the id to answer msg with, false when msg wants no answer: a notification (a
// method, no id) or a response (a result or an error). A message that is none of these is
// answered with id null.
func requestID(msg json.RawMessage) (json.RawMessage, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return json.RawMessage("null"), true
	}
	switch {
	case len(m.Result) > 0 || len(m.Error) > 0:
		return nil, false
	case len(m.ID) > 0:
		return m.ID, true
	case m.Method != nil:
		return nil, false
	}
	return json.RawMessage("null"), true
}
