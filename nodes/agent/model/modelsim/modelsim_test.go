package modelsim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// post sends a chat request body and returns the status and the body.
func post(t *testing.T, ctx context.Context, s *Server, auth, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL()+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

const hello = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

func TestAnswerJSON(t *testing.T) {
	s := New(Say("hello"), Call(ToolCall{Name: "tap", Arguments: `{"x":1}`}))
	defer s.Close()
	_, body := post(t, t.Context(), s, "", hello)
	var a struct {
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Role      string          `json:"role"`
				Content   *string         `json:"content"`
				ToolCalls json.RawMessage `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			Prompt int `json:"prompt_tokens"`
			Total  int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatal(err)
	}
	c := a.Choices[0]
	if a.Object != "chat.completion" || a.Model != "m" || c.Message.Role != "assistant" || *c.Message.Content != "hello" ||
		c.FinishReason != "stop" || a.Usage.Prompt == 0 || a.Usage.Total <= a.Usage.Prompt {
		t.Errorf("answer = %s", body)
	}
	_, body = post(t, t.Context(), s, "", hello)
	if !strings.Contains(body, `"content":null`) ||
		!strings.Contains(body, `"tool_calls":[{"id":"call_1","type":"function","function":{"name":"tap","arguments":"{\"x\":1}"}}]`) ||
		!strings.Contains(body, `"finish_reason":"tool_calls"`) {
		t.Errorf("tool-call answer = %s", body)
	}
}

func TestAnswerStream(t *testing.T) {
	args := `{"text":"ünïcödé text that is long enough"}`
	turn := Turn{Text: "Tapping the button", ToolCalls: []ToolCall{{ID: "c1", Name: "tap", Arguments: args}},
		Usage: &Usage{PromptTokens: 3, CompletionTokens: 4}}
	s := New(turn)
	defer s.Close()
	s.Script(turn) // the same again, without usage asked for
	for _, includeUsage := range []bool{true, false} {
		body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]`
		if includeUsage {
			body += `,"stream_options":{"include_usage":true}`
		}
		_, out := post(t, t.Context(), s, "", body+"}")
		events := sse(t, out)
		if events[len(events)-1] != "[DONE]" {
			t.Fatalf("stream does not end with [DONE]: %q", events)
		}
		var text, gotArgs strings.Builder
		argChunks, usages, finish := 0, 0, ""
		for _, e := range events[:len(events)-1] {
			var c struct {
				Object  string `json:"object"`
				Choices []struct {
					Delta struct {
						Content   string `json:"content"`
						ToolCalls []struct {
							Index    *int   `json:"index"`
							ID       string `json:"id"`
							Function struct {
								Name      string `json:"name"`
								Arguments string `json:"arguments"`
							} `json:"function"`
						} `json:"tool_calls"`
					} `json:"delta"`
					FinishReason *string `json:"finish_reason"`
				} `json:"choices"`
				Usage *struct {
					Total int `json:"total_tokens"`
				} `json:"usage"`
			}
			if err := json.Unmarshal([]byte(e), &c); err != nil {
				t.Fatalf("event %q: %v", e, err)
			}
			if includeUsage != strings.Contains(e, `"usage":`) {
				t.Errorf("include_usage %v, event %s", includeUsage, e)
			}
			if c.Usage != nil {
				usages++
				if c.Usage.Total != 7 || len(c.Choices) != 0 {
					t.Errorf("usage chunk %s", e)
				}
			}
			for _, ch := range c.Choices {
				text.WriteString(ch.Delta.Content)
				for _, tc := range ch.Delta.ToolCalls {
					if tc.Index == nil || *tc.Index != 0 {
						t.Errorf("tool-call delta without index 0: %s", e)
					}
					if tc.Function.Arguments != "" {
						argChunks++
					}
					gotArgs.WriteString(tc.Function.Arguments)
				}
				if ch.FinishReason != nil {
					finish = *ch.FinishReason
				}
			}
		}
		if text.String() != "Tapping the button" || gotArgs.String() != args || finish != "tool_calls" {
			t.Errorf("reassembled %q, %q, finish %q", text.String(), gotArgs.String(), finish)
		}
		if argChunks < 3 {
			t.Errorf("arguments came in %d chunks, want them split", argChunks)
		}
		if want := map[bool]int{true: 1, false: 0}[includeUsage]; usages != want {
			t.Errorf("%d usage chunks, want %d", usages, want)
		}
	}
}

// TestCut checks that a cut answer stops mid-way on a dropped connection: a stream after its
// text, before the finish; a JSON answer within its body.
func TestCut(t *testing.T) {
	turn := Turn{Text: "Tapping the Settings icon", Cut: true}
	s := New(turn, turn)
	defer s.Close()
	for _, body := range []string{`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, hello} {
		resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("reading a cut answer: %v, want unexpected EOF (got %q)", err, got)
		}
		if strings.Contains(string(got), `"finish_reason":"`) || strings.Contains(string(got), "[DONE]") {
			t.Errorf("a cut answer ended: %q", got)
		}
		if strings.Contains(body, `"stream":true`) && !strings.Contains(string(got), `"content":"Tappi"`) {
			t.Errorf("a cut stream sent no text before the cut: %q", got)
		}
	}
}

// sse returns the data of each event in a stream.
func sse(t *testing.T, stream string) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not a data line", line)
		}
		out = append(out, data)
	}
	return out
}

func TestRequestsRecorded(t *testing.T) {
	s := New(Say("ok"))
	defer s.Close()
	body := `{"model":"vision","max_tokens":9,"temperature":0.5,"messages":[
		{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"again"}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"tap","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"done"}],
		"tools":[{"type":"function","function":{"name":"tap","description":"Tap","parameters":{"type":"object"}}}]}`
	post(t, t.Context(), s, "Bearer k", body)
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Received.IsZero() {
		t.Errorf("the request has no time it was received")
	}
	r.Received = time.Time{}
	half := 0.5
	want := Request{Model: "vision", MaxTokens: 9, Temperature: &half, Authorization: "Bearer k", Body: json.RawMessage(body),
		Messages: []Message{
			{Role: "user", Text: "look\nagain", Images: []string{"data:image/png;base64,AAAA"}},
			{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "tap", Arguments: "{}"}}},
			{Role: "tool", ToolCallID: "c1", Text: "done"},
		},
		Tools: []Tool{{Type: "function", Name: "tap", Description: "Tap", Parameters: json.RawMessage(`{"type":"object"}`)}},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("request =\n%+v\nwant\n%+v", r, want)
	}
}

func TestRefusals(t *testing.T) {
	s := New(Say("one")).RequireKey("sk-right").Models("known")
	defer s.Close()
	cases := []struct {
		auth, body string
		status     int
		says       string
	}{
		{"", hello, 401, "Incorrect API key"},
		{"Bearer sk-wrong", hello, 401, `sk-wrong`}, // echoed, as careless servers do
		{"Bearer sk-right", `{"model":"m"`, 400, "not a chat-completions request"},
		{"Bearer sk-right", `{"messages":[]}`, 400, "names no model"},
		{"Bearer sk-right", hello, 404, "The model `m` does not exist"},
		{"Bearer sk-right", strings.Replace(hello, `"m"`, `"known"`, 1), 200, `"content":"one"`},
		{"Bearer sk-right", strings.Replace(hello, `"m"`, `"known"`, 1), 500, "no scripted turn left for request 7 (the script has 1 turns)"},
	}
	for _, tc := range cases {
		status, body := post(t, t.Context(), s, tc.auth, tc.body)
		if status != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("auth %q body %s: %d %s; want %d %q", tc.auth, tc.body, status, body, tc.status, tc.says)
		}
		if status >= 400 && !strings.Contains(body, `{"error":{"message":`) {
			t.Errorf("error body is not OpenAI's shape: %s", body)
		}
	}
	if n := len(s.Requests()); n != len(cases) {
		t.Errorf("recorded %d requests, want every one of %d", n, len(cases))
	}
}

func TestScriptedErrorsRawAndReply(t *testing.T) {
	s := New(
		Fail(429, "slow down"),
		Turn{Raw: "not json"},
		Turn{Reply: func(r Request) Turn { return Say("you said " + r.Messages[0].Text) }},
	)
	defer s.Close()
	if status, body := post(t, t.Context(), s, "", hello); status != 429 || !strings.Contains(body, `"slow down"`) || !strings.Contains(body, "rate_limit_exceeded") {
		t.Errorf("429: %d %s", status, body)
	}
	if status, body := post(t, t.Context(), s, "", hello); status != 200 || body != "not json" {
		t.Errorf("raw: %d %s", status, body)
	}
	if _, body := post(t, t.Context(), s, "", hello); !strings.Contains(body, `"you said hi"`) {
		t.Errorf("reply: %s", body)
	}
	if s.Left() != 0 {
		t.Errorf("%d turns left", s.Left())
	}
}

func TestModelsList(t *testing.T) {
	s := New().Models("a", "b")
	defer s.Close()
	resp, err := http.Get(s.BaseURL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if len(list.Data) != 2 || list.Data[0].ID != "a" || list.Data[1].ID != "b" {
		t.Errorf("models = %+v", list)
	}
}

// TestDelayHonoursContext checks that a client giving up, and Close, end a delayed answer.
func TestDelayHonoursContext(t *testing.T) {
	s := New(Turn{Text: "late", Delay: time.Hour}, Turn{Text: "late", Delay: time.Hour})
	defer s.Close() // again: Close is idempotent
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL()+"/chat/completions", strings.NewReader(hello))
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("a delayed answer came before the deadline")
	}
	// Close must not wait an hour for the second delayed answer.
	done := make(chan error, 1)
	go func() {
		resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", strings.NewReader(hello))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.After(10 * time.Second); len(s.Requests()) < 2; {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("the second request never arrived")
		}
	}
	s.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the delayed request still hangs after Close")
	}
}

func TestSplit(t *testing.T) {
	got := split("héllo wörld", 3)
	if want := []string{"hél", "lo ", "wör", "ld"}; !reflect.DeepEqual(got, want) {
		t.Errorf("split = %q, want %q", got, want)
	}
	if split("", 3) != nil {
		t.Error("split of nothing")
	}
}

// FuzzSplit checks that pieces join back, hold at most n runes, and never cut a rune.
func FuzzSplit(f *testing.F) {
	f.Add("héllo 日本語 \xff tail", 3)
	f.Add("", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = 1 + abs(n)%16
		pieces := split(s, n)
		if strings.Join(pieces, "") != s {
			t.Fatalf("pieces %q do not join to %q", pieces, s)
		}
		for _, p := range pieces {
			if p == "" || utf8.RuneCountInString(p) > n || (utf8.ValidString(s) && !utf8.ValidString(p)) {
				t.Fatalf("piece %q of %q (n=%d)", p, s, n)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

// FuzzDecodeRequest checks that no body makes the server's parser panic, and that what it
// accepts keeps its model.
func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(hello))
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:x"}}]}]}`))
	f.Add([]byte(`{"model":"m","messages":[{"content":[{"type":"image_url"}]}]}`))
	f.Add([]byte(`{"model":"m","messages":[{"content":null,"tool_calls":[{}]}],"tools":[{}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeRequest(body)
		if err != nil {
			return
		}
		if r.Model == "" || !bytes.Equal(r.Body, body) {
			t.Fatalf("accepted %q as %+v", body, r)
		}
	})
}

// TestWaitEndsWithTheRequest checks that a delayed answer stops waiting when the request's
// context ends, not only on Close.
func TestWaitEndsWithTheRequest(t *testing.T) {
	s := New()
	defer s.Close()
	ctx, cancel := context.WithCancel(t.Context())
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() { done <- s.wait(r, time.Hour) }()
	cancel()
	select {
	case ok := <-done:
		if ok {
			t.Error("wait says to answer a request that was given up")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("wait ignores the request's context")
	}
	if !s.wait(r, 0) {
		t.Error("no delay still waits")
	}
}
