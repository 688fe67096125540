package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
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
