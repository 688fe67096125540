package test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/internal/farmtest"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/golden instead of comparing with them")

const goldenDir = "testdata/golden"

// The front door speaks every protocol revision mcp-go negotiates, the same way each time: a
// raw JSON-RPC client records one transcript per revision (handshake, tools/list, tool calls,
// the three kinds of failure, ping) and compares it, normalised, with testdata/golden.
// `go test ./test -run Golden -update` rewrites the files; review their diff like code (a
// changed tool schema or description shows up there).
func TestGoldenTranscripts(t *testing.T) {
	for _, rev := range mcpgo.ValidProtocolVersions {
		t.Run(rev, func(t *testing.T) {
			// A farm per revision: the device list must not see the previous revision's taps
			// (each flips a device busy and back, and the registry catches up asynchronously).
			f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2})
			s := newRawSession(t, f.Gateway().MCPURL, rev)
			s.script()
			compareGolden(t, filepath.Join(goldenDir, rev+".json"), s.golden())
		})
	}
	t.Run("no stale goldens", func(t *testing.T) {
		files, _ := filepath.Glob(filepath.Join(goldenDir, "*.json"))
		for _, file := range files {
			rev := strings.TrimSuffix(filepath.Base(file), ".json")
			if slices.Contains(mcpgo.ValidProtocolVersions, rev) {
				continue
			}
			if *update {
				if err := os.Remove(file); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s: mcp-go no longer knows revision %s; -update removes the file", file, rev)
		}
	})
}

// script is what every transcript holds, checked as it goes so that -update cannot bless a
// broken answer. Structured results are checked against the tools/list of the same session.
func (s *rawSession) script() {
	t := s.t
	if s.modern() {
		// 2026-07-28 has no handshake and no session: a client may discover, then just call.
		res := s.result(s.request("server/discover", nil))
		if !slices.Contains(stringsOf(res["supportedVersions"]), s.rev) {
			t.Fatalf("server/discover does not offer %s: %v", s.rev, res["supportedVersions"])
		}
	} else {
		res := s.result(s.request("initialize", map[string]any{"protocolVersion": s.rev, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "corral-golden", "version": "1"}}))
		if res["protocolVersion"] != s.rev {
			t.Fatalf("initialize negotiated %v, asked %s", res["protocolVersion"], s.rev)
		}
		if s.session == "" {
			t.Fatal("initialize gave no Mcp-Session-Id")
		}
		if ex := s.notify("notifications/initialized"); ex.Status != http.StatusAccepted {
			t.Fatalf("notifications/initialized: HTTP %d, want 202", ex.Status)
		}
	}

	var list mcpgo.ListToolsResult
	s.decode(s.result(s.request("tools/list", map[string]any{})), &list)
	tools := map[string]mcpgo.Tool{}
	for _, tl := range list.Tools {
		tools[tl.Name] = tl
	}
	for _, name := range []string{"list_available_devices", "get_screen_size", "tap_xy"} {
		if _, ok := tools[name]; !ok {
			t.Fatalf("tools/list lacks %s", name)
		}
	}
	call := func(name string, args map[string]any) mcpgo.CallToolResult {
		t.Helper()
		var res mcpgo.CallToolResult
		s.decode(s.result(s.request("tools/call", map[string]any{"name": name, "arguments": args})), &res)
		if err := farmtest.CheckResult(tools[name], &res); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	for _, c := range []struct {
		name    string
		args    map[string]any
		isError bool
	}{
		{"list_available_devices", map[string]any{}, false},
		{"get_screen_size", map[string]any{"serial": "n1-p1"}, false},
		{"tap_xy", map[string]any{"serial": "n1-p1", "x": 0.5, "y": 0.25}, false},
		{"tap_xy", map[string]any{"serial": "n1-p1", "x": 2, "y": 0.25}, true}, // bad input: a tool error
	} {
		if res := call(c.name, c.args); res.IsError != c.isError {
			t.Fatalf("%s %v: isError %v, want %v: %v", c.name, c.args, res.IsError, c.isError, res.Content)
		}
	}
	// Malformed protocol is a protocol error: an unknown tool, an unknown method.
	s.wantError(s.request("tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}), mcpgo.INVALID_PARAMS)
	s.wantError(s.request("no/such/method", map[string]any{}), mcpgo.METHOD_NOT_FOUND)
	if s.modern() { // 2026-07-28 removed ping along with the session it kept alive
		s.wantError(s.request("ping", nil), mcpgo.METHOD_NOT_FOUND)
	} else if res := s.result(s.request("ping", nil)); len(res) != 0 {
		t.Fatalf("ping answered %v, want {}", res)
	}
}

// exchange is one HTTP POST of a transcript, as the golden file shows it.
type exchange struct {
	Request any `json:"request"`
	// RequestHeaders are the MCP headers sent (Content-Type and Accept never change).
	RequestHeaders map[string]string `json:"requestHeaders,omitempty"`
	Status         int               `json:"status"`
	// ResponseHeaders are the MCP headers received: the session id when one is minted.
	ResponseHeaders map[string]string `json:"responseHeaders,omitempty"`
	Response        any               `json:"response,omitempty"`
	// Notifications are messages the server sent on the request's stream before answering.
	Notifications []any `json:"notifications,omitempty"`
}

// rawSession is a JSON-RPC client with nothing between the test and the wire: it posts what
// the test wrote and records what came back.
type rawSession struct {
	t         *testing.T
	url, rev  string
	session   string
	http      *http.Client
	nextID    int
	exchanges []exchange
}

func newRawSession(t *testing.T, url, rev string) *rawSession {
	s := &rawSession{t: t, url: url, rev: rev, http: &http.Client{Timeout: time.Minute, Transport: &http.Transport{}}}
	t.Cleanup(s.http.CloseIdleConnections)
	return s
}

func (s *rawSession) modern() bool { return mcpgo.IsModernProtocol(s.rev) }

// request sends a request and returns its exchange.
func (s *rawSession) request(method string, params map[string]any) *exchange {
	s.nextID++
	return s.post(method, s.nextID, params)
}

// notify sends a notification (no id) and returns its exchange.
func (s *rawSession) notify(method string) *exchange { return s.post(method, 0, nil) }

func (s *rawSession) post(method string, id int, params map[string]any) *exchange {
	t := s.t
	t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != 0 {
		msg["id"] = id
	}
	headers := map[string]string{}
	switch {
	case s.modern():
		// Each request carries what initialize used to settle: version, client, capabilities,
		// in _meta and (version, method, tool name) in headers.
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = map[string]any{
			mcpgo.MetaKeyProtocolVersion:    s.rev,
			mcpgo.MetaKeyClientInfo:         map[string]any{"name": "corral-golden", "version": "1"},
			mcpgo.MetaKeyClientCapabilities: map[string]any{},
		}
		headers[mcpgo.HeaderProtocolVersion] = s.rev
		headers[mcpgo.HeaderMethod] = method
		if name, ok := params["name"].(string); ok && method == "tools/call" {
			headers[mcpgo.HeaderName] = name
		}
	case method != "initialize":
		headers[mcpgo.HeaderSessionID] = s.session
		if s.rev >= mcpgo.ProtocolVersion20250618 { // the revision that added the header
			headers[mcpgo.HeaderProtocolVersion] = s.rev
		}
	}
	if params != nil {
		msg["params"] = params
	}
	body, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	ex := exchange{Request: jsonValue(t, body), RequestHeaders: headers, Status: resp.StatusCode}
	if sid := resp.Header.Get(mcpgo.HeaderSessionID); sid != "" {
		s.session = sid
		ex.ResponseHeaders = map[string]string{mcpgo.HeaderSessionID: sid}
	}
	msgs, err := readMessages(resp)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	for _, m := range msgs {
		if _, isAnswer := m.(map[string]any)["id"]; isAnswer {
			ex.Response = m
		} else {
			ex.Notifications = append(ex.Notifications, m)
		}
	}
	if id != 0 && ex.Response == nil {
		t.Fatalf("%s: HTTP %d and no answer", method, resp.StatusCode)
	}
	s.exchanges = append(s.exchanges, ex)
	return &s.exchanges[len(s.exchanges)-1]
}

// readMessages reads the JSON-RPC messages of a response: one JSON body, or an SSE stream.
func readMessages(resp *http.Response) ([]any, error) {
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		if len(bytes.TrimSpace(body)) == 0 {
			return nil, nil
		}
		v, err := decodeJSON(body)
		return []any{v}, err
	}
	var msgs []any
	var data []string
	flush := func() error {
		if len(data) > 0 {
			v, err := decodeJSON([]byte(strings.Join(data, "\n")))
			if err != nil {
				return err
			}
			msgs = append(msgs, v)
		}
		data = data[:0]
		return nil
	}
	lines := bufio.NewScanner(bytes.NewReader(body))
	lines.Buffer(nil, 16<<20)
	for lines.Scan() {
		line := lines.Text()
		if line == "" {
			if err := flush(); err != nil {
				return nil, err
			}
		} else if d, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(d, " "))
		}
	}
	return msgs, flush()
}

// result returns an exchange's JSON-RPC result, failing the test on an error answer.
func (s *rawSession) result(ex *exchange) map[string]any {
	s.t.Helper()
	m, _ := ex.Response.(map[string]any)
	res, ok := m["result"].(map[string]any)
	if !ok {
		s.t.Fatalf("%v: no result: %v", ex.Request, ex.Response)
	}
	return res
}

// wantError checks that an exchange answered with a JSON-RPC error of this code.
func (s *rawSession) wantError(ex *exchange, code int) {
	s.t.Helper()
	m, _ := ex.Response.(map[string]any)
	e, ok := m["error"].(map[string]any)
	if !ok || e["code"] != json.Number(fmt.Sprint(code)) {
		s.t.Fatalf("%v: want a JSON-RPC error %d, got %v", ex.Request, code, ex.Response)
	}
}

// decode turns a decoded JSON value into v (an mcp-go type).
func (s *rawSession) decode(from any, v any) {
	s.t.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		s.t.Fatalf("%s: %v", b, err)
	}
}

// golden renders the transcript, normalised, as the golden file holds it.
func (s *rawSession) golden() []byte {
	s.t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // placeholders stay readable: "<session>", not "\u003csession\u003e"
	enc.SetIndent("", "  ")  // one value a line, so a review diff points at what changed
	out := make([]any, 0, len(s.exchanges))
	for _, ex := range s.exchanges {
		method := ex.Request.(map[string]any)["method"]
		v, err := normalise(jsonValue(s.t, mustJSON(s.t, ex)), method == "tools/call")
		if err != nil {
			s.t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := enc.Encode(out); err != nil {
		s.t.Fatal(err)
	}
	return buf.Bytes()
}

// The normaliser replaces what legitimately differs between runs with placeholders, and only
// that: everything else in a transcript is the contract. Serials need none (the test farm
// names its phones n1-p1, n1-p2, ...), nor request ids (the script numbers them).
//   - Mcp-Session-Id values: "<session>";
//   - task ids (t_ + 16 base32 characters): "<task>"; lease handles: "<lease>";
//   - RFC 3339 timestamps: "<time>";
//   - Go durations ("4m59s", "1.5s", "12ms") in tool results only, where a lease's remaining
//     time or a task's run time would print them (a description's "30s" is contract): "<duration>";
//   - image content data (checked to be base64 of a JPEG or PNG): "<image data>", with no
//     size or hash, which would change with every pixel the simulator draws differently.
var (
	normalisers = []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`mcp-session-[0-9a-f-]{36}`), "<session>"},
		{regexp.MustCompile(`\bt_[a-z2-7]{16}\b`), "<task>"},
		{regexp.MustCompile(`\blease_[a-z2-7]{26}\b`), "<lease>"},
		{regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`), "<time>"},
	}
	durationRE = regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+(\.\d+)?(h|m|s|ms|µs|us|ns)\b`)
)

func normalise(v any, durations bool) (any, error) {
	switch v := v.(type) {
	case string:
		for _, n := range normalisers {
			v = n.re.ReplaceAllString(v, n.with)
		}
		if durations {
			v = durationRE.ReplaceAllString(v, "<duration>")
		}
		return v, nil
	case []any:
		for i := range v {
			var err error
			if v[i], err = normalise(v[i], durations); err != nil {
				return nil, err
			}
		}
		return v, nil
	case map[string]any:
		if v["type"] == "image" {
			if err := checkImageData(v["data"], v["mimeType"]); err != nil {
				return nil, err
			}
			v["data"] = "<image data>"
		}
		for k := range v {
			var err error
			if v[k], err = normalise(v[k], durations); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
	return v, nil
}

// checkImageData makes sure the placeholder hides an image of the type the content says.
func checkImageData(data, mime any) error {
	s, _ := data.(string)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("image content: data is not base64: %w", err)
	}
	switch {
	case mime == "image/jpeg" && bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
	case mime == "image/png" && bytes.HasPrefix(b, []byte("\x89PNG")):
	default:
		return fmt.Errorf("image content: %d bytes are not %v", len(b), mime)
	}
	return nil
}

// compareGolden compares got with the golden file, or rewrites the file under -update.
func compareGolden(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v\nrun: go test ./test -run Golden -update, and review the new file", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	t.Fatalf("%s differs from this run: %s\nif the change is intended, run: go test ./test -run Golden -update, and review the diff",
		file, firstDiff(want, got))
}

// firstDiff shows the first line where want and got differ, with the lines before it.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	line := func(lines []string) string {
		if i < len(lines) {
			return lines[i]
		}
		return "(end of file)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d\n", i+1)
	for j := max(0, i-3); j < i; j++ {
		fmt.Fprintf(&b, "        %s\n", w[j])
	}
	fmt.Fprintf(&b, "  want: %s\n  got:  %s", line(w), line(g))
	return b.String()
}

// jsonValue decodes JSON keeping numbers as written (json.Number), so 0.25 stays 0.25.
func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	v, err := decodeJSON(b)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w: %.200s", err, b)
	}
	return v, nil
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func stringsOf(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
