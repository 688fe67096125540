package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBridgeSSEWritesOneMessagePerEvent(t *testing.T) {
	var out bytes.Buffer
	b := &Bridge{}
	in := "event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\n" + "data: \"result\":{\"protocolVersion\":\"2025-11-25\"}}\n\n"
	b.relaySSE(strings.NewReader(in), &out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 messages, got %q", out.String())
	}
	if !strings.Contains(lines[0], "notifications/progress") {
		t.Fatalf("first message: %q", lines[0])
	}
	if b.protocol != "2025-11-25" {
		t.Fatalf("protocol version not taken from the initialize answer: %q", b.protocol)
	}
}

func TestBridgeFailAnswersRequestsOnly(t *testing.T) {
	var out bytes.Buffer
	b := &Bridge{}
	b.Run(t.Context(), strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`+"\n"+`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"), &out)
	// No URL: both fail; only the request (id 7) gets an error answer.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one error answer, got %q", out.String())
	}
	var m struct {
		ID    int `json:"id"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &m); err != nil || m.ID != 7 || !strings.Contains(m.Error.Message, "gateway unreachable") {
		t.Fatalf("answer %q (%v)", lines[0], err)
	}
}

// FuzzBridgeSSE feeds arbitrary event streams to the SSE reader: it never panics and writes
// only whole lines.
func FuzzBridgeSSE(f *testing.F) {
	f.Add([]byte("data: {}\n\n"))
	f.Add([]byte("data: a\ndata: b\n\nevent: x\n\n:comment\ndata:\n\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		var out bytes.Buffer
		(&Bridge{}).relaySSE(bytes.NewReader(stream), &out)
		if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
			t.Fatalf("output does not end a line: %q", out.String())
		}
		if out.Len() == 0 {
			return
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				t.Fatalf("an empty message was written: %q", out.String())
			}
		}
	})
}

// bridgeOut runs a bridge sending headers on in against a real gateway (over a fake farm) and
// returns the lines it wrote.
func bridgeOut(t *testing.T, headers map[string]string, in string) []string {
	t.Helper()
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	var out bytes.Buffer
	b := &Bridge{URL: h.srv.URL + "/mcp", Headers: headers}
	require.NoError(t, b.Run(t.Context(), strings.NewReader(in), &out), "the bridge stopped reading")
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// bridgeAnswers runs a bridge on in against a real gateway (over a fake farm) and returns its
// answers by id ("null" for null), in the order written.
func bridgeAnswers(t *testing.T, in string) map[string][]map[string]any {
	t.Helper()
	answers := map[string][]map[string]any{}
	for _, line := range bridgeOut(t, nil, in) {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "not one JSON message a line: %.300s", line)
		id, _ := json.Marshal(m["id"])
		answers[string(id)] = append(answers[string(id)], m)
	}
	return answers
}

func bridgeError(t *testing.T, m map[string]any) (code float64, message string) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	require.True(t, ok, "not an error answer: %v", m)
	return e["code"].(float64), e["message"].(string)
}

// Lines that are no JSON-RPC message get JSON-RPC's error, id null, on stdout; a line over
// 16 MiB gets one with its id, and the bridge reads on: the next request is answered.
func TestBridgeAnswersBadLinesAndReadsOn(t *testing.T) {
	huge := strings.Repeat("A", maxLine)
	in := initializeBody + "\n" +
		"this is not json\n" +
		"[]\n" +
		"42\n" +
		// the TypeScript SDK writes the id last
		`{"method":"tools/call","params":{"name":"tap_xy","arguments":{"id":"not this","data":"` + huge + `"}},"jsonrpc":"2.0","id":"big-1"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	answers := bridgeAnswers(t, in)
	assert.Len(t, answers["null"], 3, "one answer for each bad line: %v", answers["null"])
	for _, a := range answers["null"] {
		bridgeError(t, a)
	}

	require.Len(t, answers[`"big-1"`], 1)
	code, msg := bridgeError(t, answers[`"big-1"`][0])
	assert.Equal(t, float64(codeInvalidRequest), code)
	assert.Contains(t, msg, "request too large")
	assert.Contains(t, msg, "16 MiB")

	require.Len(t, answers["2"], 1, "the request after the long line was not answered")
	assert.Contains(t, answers["2"][0], "result")
	require.Len(t, answers["1"], 1)
	assert.Contains(t, answers["1"][0], "result")
}

// Each bad line gets its own error answer, id null.
func TestBridgeAnswersEachBadLine(t *testing.T) {
	for _, c := range []struct {
		line string
		code int
		want string
	}{
		{"this is not json", codeParseError, "parse error: the line is not JSON"},
		{`{"jsonrpc":"2.0","id":3,`, codeParseError, "parse error"},
		{"[]", codeInvalidRequest, "empty batch"},
		{" [ ] ", codeInvalidRequest, "empty batch"},
		{"42", codeInvalidRequest, "got a number"},
		{`"tools/list"`, codeInvalidRequest, "got a string"},
		{`{"note":"` + strings.Repeat("x", maxLine) + `"}`, codeInvalidRequest, "request too large"},
	} {
		t.Run(c.want, func(t *testing.T) {
			answers := bridgeAnswers(t, initializeBody+"\n"+c.line+"\n"+`{"jsonrpc":"2.0","id":9,"method":"ping"}`+"\n")
			require.Len(t, answers["null"], 1, "answers with id null: %v", answers)
			code, msg := bridgeError(t, answers["null"][0])
			assert.Equal(t, float64(c.code), code)
			assert.Contains(t, msg, c.want)
			require.Len(t, answers["9"], 1, "the next request was not answered")
			assert.Contains(t, answers["9"][0], "result")
		})
	}
}

// The id of a message too long to keep is found wherever it stands, and only at the top.
func TestIDScanner(t *testing.T) {
	for msg, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":1}}`:             "7",
		`{"method":"x","params":{"id":"inner","l":[{"id":3}]},"id":"outer"}`: `"outer"`,
		`{ "id" : "a\"b" , "method":"x"}`:                                    `"a\"b"`,
		`{"params":{"s":"\"id\":5"},"id":-1.5e3}`:                            "-1.5e3",
		`{"idx":1,"xid":2,"method":"x"}`:                                     "",
		`{"id":{"a":1}}`:                                                     "",
		`{"id":null}`:                                                        "null",
		`[{"id":1}]`:                                                         "",
		`{"s":"id","x":1,"id":4}`:                                            "4",
		`"id"`:                                                               "",
	} {
		s := &idScanner{}
		s.feed([]byte(msg))
		if got := string(s.id()); got != want {
			t.Errorf("%s: id %q, want %q", msg, got, want)
		}
	}
}

// A gateway that cannot be reached: each request of a batch gets its error, in a batch; a
// response the client sends (to a server's request) gets none.
func TestBridgeFailAnswersABatchsRequests(t *testing.T) {
	var out bytes.Buffer
	b := &Bridge{}
	in := `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"ping"}]` + "\n" +
		`{"jsonrpc":"2.0","id":5,"result":{}}` + "\n"
	require.NoError(t, b.Run(t.Context(), strings.NewReader(in), &out))
	var batch []struct {
		ID    any `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(bytes.TrimSpace(out.Bytes()), &batch), "want one batch answer: %q", out.String())
	require.Len(t, batch, 2)
	assert.ElementsMatch(t, []any{float64(1), "b"}, []any{batch[0].ID, batch[1].ID})
}
