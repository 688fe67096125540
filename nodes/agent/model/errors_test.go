package model_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// TestChatErrors checks that each way a call fails gives the error that says what to do.
func TestChatErrors(t *testing.T) {
	cases := []struct {
		name   string
		turn   modelsim.Turn
		stream bool
		is     error
		says   []string
	}{
		{"server error", modelsim.Fail(500, "CUDA out of memory"), false, model.ErrServer, []string{"500", "CUDA out of memory", `"m"`}},
		{"server error streaming", modelsim.Fail(503, "loading model"), true, model.ErrServer, []string{"503", "loading model"}},
		{"rate limited", modelsim.Fail(429, "Rate limit reached"), false, model.ErrRateLimited, []string{"retry later"}},
		{"bad request", modelsim.Fail(400, "model does not support tools"), false, model.ErrBadRequest, []string{"does not support tools", "takes tools and images"}},
		{"html instead of JSON", modelsim.Turn{Raw: "<html><body>Welcome to nginx</body></html>"}, false, model.ErrMalformed, []string{"not a chat-completions answer", "/v1"}},
		{"no choices", modelsim.Turn{Raw: `{"id":"x","object":"chat.completion","choices":[]}`}, false, model.ErrMalformed, []string{"without choices"}},
		{"garbage stream", modelsim.Turn{Raw: "this is not an event stream\n"}, true, model.ErrMalformed, []string{"sent no stream", "drop --openai-stream"}},
		{"JSON answer to a stream request", modelsim.Turn{Raw: `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}` + "\n"},
			true, model.ErrMalformed, []string{"does not seem to stream", "drop --openai-stream", "CORRAL_OPENAI_STREAM=false"}},
		{"bad JSON in stream", modelsim.Turn{Raw: "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}\n\n"}, true, model.ErrMalformed, []string{"not a chat-completions answer"}},
		{"stream cut short", modelsim.Turn{Raw: "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Tapping\"},\"finish_reason\":null}]}\n\n"}, true,
			model.ErrServer, []string{"stopped mid-answer", "retrying may help"}},
		{"connection dropped mid-stream", modelsim.Turn{Text: "Tapping the Settings icon now", Cut: true}, true,
			model.ErrServer, []string{"closed the connection mid-answer", "retrying may help"}},
		{"tool call dropped mid-stream", modelsim.Turn{ToolCalls: []modelsim.ToolCall{{Name: "tap", Arguments: `{"bbox":[0.1,0.2,0.3,0.4]}`}}, Cut: true}, true,
			model.ErrServer, []string{"closed the connection mid-answer"}},
		{"connection dropped mid-answer", modelsim.Turn{Text: "Tapping the Settings icon now", Cut: true}, false,
			model.ErrServer, []string{"closed the connection mid-answer"}},
		{"whole answer that stops mid-JSON", modelsim.Turn{Raw: `{"id": "x", "choices": [ {"message": `}, false,
			model.ErrMalformed, []string{"stops mid-JSON although the body arrived whole"}},
		{"server refuses to stream", modelsim.Fail(400, "streaming is not supported with tools"), true,
			model.ErrBadRequest, []string{"not supported with tools", "drop --openai-stream"}},
		{"error event mid-stream", modelsim.Turn{Raw: "data: {\"error\":{\"message\":\"upstream overloaded\",\"type\":\"server_error\"}}\n\n"}, true,
			model.ErrServer, []string{"mid-answer", "upstream overloaded"}},
		{"empty answer", modelsim.Turn{}, false, model.ErrEmptyAnswer, []string{"supports tool calling"}},
		{"empty answer streaming", modelsim.Turn{}, true, model.ErrEmptyAnswer, []string{"neither text nor tool calls"}},
		{"whitespace answer", modelsim.Say(" \n "), false, model.ErrEmptyAnswer, nil},
		{"out of tokens", modelsim.Turn{FinishReason: "length"}, false, model.ErrEmptyAnswer, []string{"larger output limit", "shorter goal", "maxSteps"}},
		{"refusal", modelsim.Turn{Raw: `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`},
			false, model.ErrEmptyAnswer, []string{`model "m" at`, "refused: I can't help with that."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := sim(t, tc.turn)
			c := newClient(t, srv.BaseURL(), "m")
			_, err := c.Chat(t.Context(), model.Request{Messages: user("x"), Stream: tc.stream})
			checkErr(t, err, tc.is, append(tc.says, srv.BaseURL())...)
		})
	}
}

func TestChatErrorBeyondScript(t *testing.T) {
	srv := sim(t, modelsim.Say("one"))
	c := newClient(t, srv.BaseURL(), "m")
	if _, err := c.Chat(t.Context(), model.Request{Messages: user("1")}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Chat(t.Context(), model.Request{Messages: user("2")})
	checkErr(t, err, model.ErrServer, "no scripted turn left for request 2", "500")
}

func TestChatErrorWrongKey(t *testing.T) {
	// The server echoes the key it refused, as careless servers do: the error must not.
	srv := modelsim.New(modelsim.Say("never")).RequireKey("sk-the-right-one")
	t.Cleanup(srv.Close)
	c := newClient(t, srv.BaseURL(), "m")
	for _, stream := range []bool{false, true} {
		_, err := c.Chat(t.Context(), model.Request{Messages: user("x"), Stream: stream})
		checkErr(t, err, model.ErrUnauthorized, "the model endpoint refused the API key: check the API key the node was given", "401", "[redacted]")
	}
	if srv.Left() != 1 {
		t.Errorf("a refused request took a turn")
	}
}

func TestChatErrorNoKey(t *testing.T) {
	srv := sim(t)
	c, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(t.Context(), model.Request{Messages: user("x")})
	checkErr(t, err, model.ErrUnauthorized, "none was sent", "OPENAI_API_KEY")
	if got := srv.Requests()[0].Authorization; got != "" {
		t.Errorf("Authorization = %q with no key configured", got)
	}
}

func TestChatErrorUnknownModel(t *testing.T) {
	srv := sim(t).Models("gpt-4o")
	c := newClient(t, srv.BaseURL(), "gpt-40")
	_, err := c.Chat(t.Context(), model.Request{Messages: user("x")})
	checkErr(t, err, model.ErrModelNotFound, `model "gpt-40"`, srv.BaseURL(), "does not exist", "OPENAI_MODEL", "/models")
}

func TestChatErrorBaseURLWithoutV1(t *testing.T) {
	srv := sim(t, modelsim.Say("x"))
	c := newClient(t, srv.URL(), "m") // forgot /v1
	_, err := c.Chat(t.Context(), model.Request{Messages: user("x")})
	checkErr(t, err, model.ErrModelNotFound, srv.URL(), "404", "ending in /v1")
}

func TestChatErrorConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/v1"
	l.Close() // nothing listens there now
	c := newClient(t, base, "m")
	for _, stream := range []bool{false, true} {
		_, err := c.Chat(t.Context(), model.Request{Messages: user("x"), Stream: stream})
		checkErr(t, err, model.ErrUnreachable, "nothing answers at "+base, "OPENAI_BASE_URL")
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("error does not wrap ECONNREFUSED: %v", err)
		}
	}
}

func TestChatErrorDeadline(t *testing.T) {
	for _, stream := range []bool{false, true} {
		srv := sim(t, modelsim.Turn{Text: "too late", Delay: time.Hour})
		c := newClient(t, srv.BaseURL(), "slow-model")
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		_, err := c.Chat(ctx, model.Request{Messages: user("x"), Stream: stream})
		cancel()
		checkErr(t, err, context.DeadlineExceeded, `model "slow-model"`, srv.BaseURL(), "did not answer in time")
	}
}

func TestChatErrorCancelled(t *testing.T) {
	srv := sim(t, modelsim.Turn{Text: "never", Delay: time.Hour})
	c := newClient(t, srv.BaseURL(), "m")
	ctx, cancel := context.WithCancel(t.Context())
	// Cancel once the request is in, as an abort would.
	go func() {
		defer cancel()
		waitFor(t, func() bool { return len(srv.Requests()) == 1 })
	}()
	_, err := c.Chat(ctx, model.Request{Messages: user("x")})
	checkErr(t, err, context.Canceled, srv.BaseURL())
}

func TestChatErrorRedirect(t *testing.T) {
	// A redirect would carry the key elsewhere; it is refused.
	mux := http.NewServeMux()
	target := sim(t, modelsim.Say("stolen"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL()+r.URL.Path, http.StatusTemporaryRedirect)
	})
	front := &http.Server{Handler: mux}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = front.Serve(l) }()
	t.Cleanup(func() { _ = front.Close() })
	c := newClient(t, "http://"+l.Addr().String()+"/v1", "m")
	_, err = c.Chat(t.Context(), model.Request{Messages: user("x")})
	checkErr(t, err, model.ErrUnreachable, "redirects to "+target.URL(), "set OPENAI_BASE_URL to the final URL")
	if n := len(target.Requests()); n != 0 {
		t.Errorf("the redirect was followed: the target got %d requests", n)
	}
}

func TestChatRejectsBadRequests(t *testing.T) {
	img := model.Image{Data: []byte("\x89PNG\r\n\x1a\n0000")}
	cases := []struct {
		name string
		req  model.Request
		says string
	}{
		{"no messages", model.Request{}, "no messages"},
		{"unknown role", model.Request{Messages: []model.Message{{Role: "robot", Text: "x"}}}, `unknown role "robot"`},
		{"empty user message", model.Request{Messages: []model.Message{{Role: model.RoleUser}}}, "give text or images"},
		{"tool result without ID", model.Request{Messages: []model.Message{{Role: model.RoleTool, Text: "ok"}}}, "ToolCallID"},
		{"empty tool result", model.Request{Messages: []model.Message{{Role: model.RoleTool, ToolCallID: "c1"}}}, "has no text"},
		{"image on assistant", model.Request{Messages: []model.Message{{Role: model.RoleAssistant, Text: "x", Images: []model.Image{img}}}}, "images go in user messages"},
		{"tool calls on user", model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "x", ToolCalls: []model.ToolCall{{ID: "1", Name: "t"}}}}}, "assistant messages"},
		{"not an image", model.Request{Messages: []model.Message{{Role: model.RoleUser, Images: []model.Image{{Data: []byte("hello")}}}}}, "not JPEG, PNG"},
		{"mislabelled image", model.Request{Messages: []model.Message{{Role: model.RoleUser, Images: []model.Image{{MIME: "image/jpeg", Data: img.Data}}}}}, "labelled image/jpeg but its bytes are image/png"},
		{"bad tool name", model.Request{Messages: user("x"), Tools: []model.Tool{{Name: "tap screen"}}}, `tool name "tap screen"`},
		{"bad schema", model.Request{Messages: user("x"), Tools: []model.Tool{{Name: "tap", Parameters: []byte(`{"type":`)}}}, "not a JSON schema object"},
		{"negative max tokens", model.Request{Messages: user("x"), MaxTokens: -1}, "negative"},
		{"hot temperature", model.Request{Messages: user("x"), Temperature: ptr(3)}, "outside 0..2"},
	}
	srv := sim(t)
	c := newClient(t, srv.BaseURL(), "m")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Chat(t.Context(), tc.req)
			checkErr(t, err, nil, tc.says)
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d bad requests reached the server", n)
	}
}

// checkErr fails unless err wraps is (when given) and says every one of says, and holds no key.
func checkErr(t *testing.T, err error, is error, says ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	noKey(t, err)
	if is != nil && !errors.Is(err, is) {
		t.Errorf("error does not wrap %q: %v", is, err)
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error does not say %q: %v", s, err)
		}
	}
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Error("condition not met within 10s")
			return
		}
	}
}

// hugeAnswer is a well-formed answer whose text is more than MaxAnswerBytes.
func hugeAnswer() string {
	return `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"` +
		strings.Repeat("a", model.MaxAnswerBytes) + `"},"finish_reason":"stop"}]}`
}

// TestChatRefusesAnAnswerOverTheLimit checks that an answer past MaxAnswerBytes is not read
// whole, JSON or streamed, and says so.
func TestChatRefusesAnAnswerOverTheLimit(t *testing.T) {
	streamed := "data: " + `{"id":"1","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("b", model.MaxAnswerBytes) + `"},"finish_reason":null}]}` + "\n\n"
	for _, tc := range []struct {
		name   string
		raw    string
		stream bool
	}{{"json", hugeAnswer(), false}, {"stream", streamed, true}, {"error body", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			turn := modelsim.Turn{Raw: tc.raw}
			if tc.raw == "" {
				turn = modelsim.Fail(http.StatusInternalServerError, strings.Repeat("c", model.MaxAnswerBytes))
			}
			srv := sim(t, turn)
			c := newClient(t, srv.BaseURL(), "m")
			_, err := c.Chat(t.Context(), model.Request{Messages: user("x"), Stream: tc.stream})
			checkErr(t, err, model.ErrTooLarge, "the model's answer is over 8 MiB", srv.BaseURL())
			if errors.Is(err, model.ErrServer) || errors.Is(err, model.ErrMalformed) {
				t.Errorf("a too large answer is also %v", err)
			}
		})
	}
}

// TestChatTakesAnAnswerAtTheLimit checks that the limit is not off by one.
func TestChatTakesAnAnswerAtTheLimit(t *testing.T) {
	head, tail := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`, `"},"finish_reason":"stop"}]}`
	raw := head + strings.Repeat("a", model.MaxAnswerBytes-len(head)-len(tail)) + tail
	srv := sim(t, modelsim.Turn{Raw: raw})
	c := newClient(t, srv.BaseURL(), "m")
	resp, err := c.Chat(t.Context(), model.Request{Messages: user("x")})
	if err != nil || len(resp.Text) != model.MaxAnswerBytes-len(head)-len(tail) {
		t.Fatalf("an answer of exactly %d bytes: %d bytes of text, %v", model.MaxAnswerBytes, len(resp.Text), err)
	}
}

// TestChatRetryAfterNow checks that a Retry-After of zero, or a date already past (a second
// 429 whose date is now), reads "retry now", not "retry after 0s".
func TestChatRetryAfterNow(t *testing.T) {
	for _, header := range []string{"0", time.Now().Add(-5 * time.Second).UTC().Format(http.TimeFormat)} {
		turn := modelsim.Fail(429, "slow down")
		turn.Header = map[string]string{"Retry-After": header}
		srv := sim(t, turn)
		_, err := newClient(t, srv.BaseURL(), "m").Chat(t.Context(), model.Request{Messages: user("x")})
		if after, ok := model.RetryAfter(err); !ok || after != 0 {
			t.Errorf("Retry-After %q: wait %s (%t), want 0", header, after, ok)
		}
		if err == nil || !strings.Contains(err.Error(), "(it asks to retry now)") || strings.Contains(err.Error(), "0s") {
			t.Errorf("Retry-After %q: %v, want it to say it asks to retry now", header, err)
		}
	}
}

// TestChatRetryAfter checks that a 429's or 503's Retry-After, in seconds or as a date, comes
// with the error.
func TestChatRetryAfter(t *testing.T) {
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		status      int
		header      string
		least, most time.Duration
	}{
		{429, "2", 2 * time.Second, 2 * time.Second},
		{503, "7", 7 * time.Second, 7 * time.Second},
		{429, date, 80 * time.Second, 90 * time.Second},
		{429, "soon", -1, -1},
		{429, "", -1, -1},
	} {
		turn := modelsim.Fail(tc.status, "slow down")
		if tc.header != "" {
			turn.Header = map[string]string{"Retry-After": tc.header}
		}
		srv := sim(t, turn)
		_, err := newClient(t, srv.BaseURL(), "m").Chat(t.Context(), model.Request{Messages: user("x")})
		after, ok := model.RetryAfter(err)
		switch {
		case tc.least < 0 && ok:
			t.Errorf("%d Retry-After %q: a wait of %s", tc.status, tc.header, after)
		case tc.least >= 0 && (!ok || after < tc.least || after > tc.most):
			t.Errorf("%d Retry-After %q: wait %s (%t), want %s to %s", tc.status, tc.header, after, ok, tc.least, tc.most)
		case tc.least >= 0 && !strings.Contains(err.Error(), "it asks to retry after"):
			t.Errorf("the error does not say the wait: %v", err)
		}
		if !errors.Is(err, model.ErrRateLimited) && !errors.Is(err, model.ErrServer) {
			t.Errorf("%d: %v", tc.status, err)
		}
	}
}
