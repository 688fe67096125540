package model_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

func TestChatText(t *testing.T) {
	srv := sim(t, modelsim.Say("The Settings app is open."))
	c := newClient(t, srv.BaseURL(), "qwen2.5vl")

	resp, err := c.Chat(t.Context(), model.Request{Messages: []model.Message{
		{Role: model.RoleSystem, Text: "You drive a phone."},
		{Role: model.RoleUser, Text: "Open Settings"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "The Settings app is open." || resp.FinishReason != "stop" || len(resp.ToolCalls) != 0 {
		t.Fatalf("response = %+v", resp)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != "qwen2.5vl" || r.Authorization != "Bearer "+testKey || r.Stream {
		t.Errorf("request model %q, auth %q, stream %v", r.Model, r.Authorization, r.Stream)
	}
	want := []modelsim.Message{{Role: "system", Text: "You drive a phone."}, {Role: "user", Text: "Open Settings"}}
	if !reflect.DeepEqual(r.Messages, want) {
		t.Errorf("messages = %+v, want %+v", r.Messages, want)
	}
}

func TestChatToolCalls(t *testing.T) {
	srv := sim(t, modelsim.Call(
		modelsim.ToolCall{ID: "call_a", Name: "tap", Arguments: `{"x":0,"y":0.25}`},
		modelsim.ToolCall{ID: "call_b", Name: "input_text", Arguments: `{"text":"héllo \"wörld\" 日本","submit":true,"nested":{"a":[1,2]}}`},
		modelsim.ToolCall{Name: "home_screen"}, // no ID, no arguments
	))
	c := newClient(t, srv.BaseURL(), "gpt-4o")
	tools := []model.Tool{
		{Name: "tap", Description: "Tap a point", Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}`)},
		{Name: "input_text", Description: "Type text", Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		{Name: "home_screen", Description: "Go home"},
	}
	resp, err := c.Chat(t.Context(), model.Request{Messages: user("type hello"), Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != "tool_calls" || len(resp.ToolCalls) != 3 {
		t.Fatalf("response = %+v", resp)
	}
	checkCall(t, resp.ToolCalls[0], "call_a", "tap", `{"x":0,"y":0.25}`)
	checkCall(t, resp.ToolCalls[1], "call_b", "input_text", `{"text":"héllo \"wörld\" 日本","submit":true,"nested":{"a":[1,2]}}`)
	checkCall(t, resp.ToolCalls[2], "call_3", "home_screen", `{}`)

	got := srv.Requests()[0].Tools
	if len(got) != 3 {
		t.Fatalf("server got %d tools, want 3", len(got))
	}
	for i, tool := range got {
		if tool.Type != "function" || tool.Name != tools[i].Name || tool.Description != tools[i].Description {
			t.Errorf("tool %d = %+v", i, tool)
		}
	}
	jsonEqual(t, got[0].Parameters, tools[0].Parameters)
	jsonEqual(t, got[2].Parameters, json.RawMessage(`{"type":"object","properties":{}}`))
}

// TestChatReplaysHistory checks that the calls of an earlier turn and their results go back
// to the server as OpenAI expects them.
func TestChatReplaysHistory(t *testing.T) {
	srv := sim(t, modelsim.Say("done"))
	c := newClient(t, srv.BaseURL(), "m")
	args := json.RawMessage(`{"x":0.5,"y":0.5}`)
	_, err := c.Chat(t.Context(), model.Request{Messages: []model.Message{
		{Role: model.RoleUser, Text: "tap the middle"},
		{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "call_9", Name: "tap", Arguments: args}}},
		{Role: model.RoleTool, ToolCallID: "call_9", Name: "tap", Text: `{"ok":true}`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[0].Messages
	want := []modelsim.Message{
		{Role: "user", Text: "tap the middle"},
		{Role: "assistant", ToolCalls: []modelsim.ToolCall{{ID: "call_9", Name: "tap", Arguments: string(args)}}},
		{Role: "tool", ToolCallID: "call_9", Name: "tap", Text: `{"ok":true}`},
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Fatalf("messages =\n%+v\nwant\n%+v", msgs, want)
	}
}

func TestChatImagesAsDataURLs(t *testing.T) {
	srv := sim(t, modelsim.Say("I see a red line"))
	c := newClient(t, srv.BaseURL(), "m")
	pngData, jpegData := pngBytes(t), jpegBytes(t)
	_, err := c.Chat(t.Context(), model.Request{Messages: []model.Message{{
		Role: model.RoleUser, Text: "What is on screen?",
		Images: []model.Image{{MIME: "image/png", Data: pngData}, {Data: jpegData}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	m := srv.Requests()[0].Messages[0]
	if m.Text != "What is on screen?" || len(m.Images) != 2 {
		t.Fatalf("message = text %q, %d images", m.Text, len(m.Images))
	}
	for i, want := range []model.Image{{MIME: "image/png", Data: pngData}, {MIME: "image/jpeg", Data: jpegData}} {
		if !strings.HasPrefix(m.Images[i], "data:"+want.MIME+";base64,") {
			t.Errorf("image %d URL starts %.40q, want data:%s;base64,", i, m.Images[i], want.MIME)
		}
		got, err := model.ParseDataURL(m.Images[i])
		if err != nil {
			t.Fatal(err)
		}
		if got.MIME != want.MIME || !bytes.Equal(got.Data, want.Data) {
			t.Errorf("image %d arrived as %s (%d bytes), want %s (%d bytes)", i, got.MIME, len(got.Data), want.MIME, len(want.Data))
		}
	}
	// The parts must be a list: text first, then each image_url.
	var body struct {
		Messages []struct {
			Content []struct {
				Type string `json:"type"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, p := range body.Messages[0].Content {
		types = append(types, p.Type)
	}
	if !reflect.DeepEqual(types, []string{"text", "image_url", "image_url"}) {
		t.Errorf("content part types = %v", types)
	}
}

func TestChatUsage(t *testing.T) {
	for _, stream := range []bool{false, true} {
		srv := sim(t, modelsim.Turn{Text: "ok", Usage: &modelsim.Usage{PromptTokens: 1234, CompletionTokens: 56}})
		c := newClient(t, srv.BaseURL(), "m")
		resp, err := c.Chat(t.Context(), model.Request{Messages: user("hi"), Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		if want := (model.Usage{PromptTokens: 1234, CompletionTokens: 56, TotalTokens: 1290}); resp.Usage != want {
			t.Errorf("stream=%v: usage = %+v, want %+v", stream, resp.Usage, want)
		}
		if sum := resp.Usage.Add(resp.Usage); sum.TotalTokens != 2580 {
			t.Errorf("Add: %+v", sum)
		}
	}
}

func TestChatStreamText(t *testing.T) {
	text := "Opening Settings, then Wi‑Fi → toggling it off. 完成"
	srv := sim(t, modelsim.Say(text))
	c := newClient(t, srv.BaseURL(), "m")
	var deltas []string
	resp, err := c.Chat(t.Context(), model.Request{Messages: user("turn wifi off"), Stream: true,
		OnDelta: func(d string) { deltas = append(deltas, d) }})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != text || resp.FinishReason != "stop" {
		t.Fatalf("response = %+v", resp)
	}
	if len(deltas) < 3 || strings.Join(deltas, "") != text {
		t.Errorf("deltas = %q, want several pieces of %q", deltas, text)
	}
	if r := srv.Requests()[0]; !r.Stream || !r.IncludeUsage {
		t.Errorf("request stream=%v include_usage=%v, want both", r.Stream, r.IncludeUsage)
	}
	if resp.Usage.TotalTokens == 0 {
		t.Errorf("no usage from the stream")
	}
}

func TestChatStreamToolCalls(t *testing.T) {
	long := `{"text":"` + strings.Repeat("ab€c", 40) + `","bbox":[0.1,0.2,0.3,0.4]}`
	srv := sim(t, modelsim.Turn{Text: "Typing now.", ToolCalls: []modelsim.ToolCall{
		{ID: "call_1", Name: "input_text", Arguments: long},
		{ID: "call_2", Name: "tap", Arguments: `{"bbox":[0,0,1,1]}`},
	}})
	c := newClient(t, srv.BaseURL(), "m")
	var deltas strings.Builder
	resp, err := c.Chat(t.Context(), model.Request{Messages: user("type"), Stream: true, OnDelta: func(d string) { deltas.WriteString(d) }})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Typing now." || deltas.String() != "Typing now." || resp.FinishReason != "tool_calls" || len(resp.ToolCalls) != 2 {
		t.Fatalf("response = %+v, deltas %q", resp, deltas.String())
	}
	checkCall(t, resp.ToolCalls[0], "call_1", "input_text", long)
	checkCall(t, resp.ToolCalls[1], "call_2", "tap", `{"bbox":[0,0,1,1]}`)
}

// TestChatConfigStream checks that --openai-stream (Config.Stream) streams every call, the
// caller asking nothing, and that tool calls split over many chunks come out whole.
func TestChatConfigStream(t *testing.T) {
	long := `{"text":"` + strings.Repeat("stream me 日本 ", 30) + `"}`
	srv := sim(t, modelsim.Turn{Text: "Typing the note now.", ToolCalls: []modelsim.ToolCall{
		{ID: "call_1", Name: "input", Arguments: long},
		{ID: "call_2", Name: "step_done", Arguments: `{"status":"success","summary":"typed"}`},
	}})
	c, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "m", APIKey: model.NewSecret(testKey), Stream: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Streams() {
		t.Error("Streams() = false with Config.Stream")
	}
	var deltas []string
	resp, err := c.Chat(t.Context(), model.Request{Messages: user("type"), OnDelta: func(d string) { deltas = append(deltas, d) }})
	if err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[0]; !r.Stream || !r.IncludeUsage {
		t.Errorf("request stream=%v include_usage=%v, want both from the config", r.Stream, r.IncludeUsage)
	}
	if len(deltas) < 3 || strings.Join(deltas, "") != "Typing the note now." {
		t.Errorf("deltas = %q, want the text in several pieces", deltas)
	}
	if len(resp.ToolCalls) != 2 {
		t.Fatalf("response = %+v", resp)
	}
	checkCall(t, resp.ToolCalls[0], "call_1", "input", long)
	checkCall(t, resp.ToolCalls[1], "call_2", "step_done", `{"status":"success","summary":"typed"}`)
	if c := newClient(t, srv.BaseURL(), "m"); c.Streams() {
		t.Error("Streams() = true without Config.Stream")
	}
}

func TestChatOnDeltaWithoutStream(t *testing.T) {
	srv := sim(t, modelsim.Say("whole"))
	c := newClient(t, srv.BaseURL(), "m")
	var deltas []string
	if _, err := c.Chat(t.Context(), model.Request{Messages: user("x"), OnDelta: func(d string) { deltas = append(deltas, d) }}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(deltas, []string{"whole"}) {
		t.Errorf("deltas = %q, want the whole text once", deltas)
	}
}

func TestChatSamplingSettings(t *testing.T) {
	zero, warm := 0.0, 0.7
	cases := []struct {
		name, model     string
		req             model.Request
		temp            *float64
		maxTok, maxComp int
	}{
		{"defaults", "qwen", model.Request{}, nil, 0, 0},
		{"zero temperature is sent", "qwen", model.Request{Temperature: &zero, MaxTokens: 300}, ptr(1e-6), 300, 0},
		{"warm", "qwen", model.Request{Temperature: &warm}, ptr(0.7), 0, 0},
		{"reasoning model takes max_completion_tokens, fixed temperature", "gpt-5", model.Request{Temperature: &warm, MaxTokens: 300}, nil, 0, 300},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := sim(t, modelsim.Say("ok"))
			c := newClient(t, srv.BaseURL(), tc.model)
			tc.req.Messages = user("x")
			if _, err := c.Chat(t.Context(), tc.req); err != nil {
				t.Fatal(err)
			}
			r := srv.Requests()[0]
			if (r.Temperature == nil) != (tc.temp == nil) || (r.Temperature != nil && math.Abs(*r.Temperature-*tc.temp) > 1e-7) {
				t.Errorf("temperature = %v, want %v", deref(r.Temperature), deref(tc.temp))
			}
			if r.MaxTokens != tc.maxTok || r.MaxCompletionTokens != tc.maxComp {
				t.Errorf("max_tokens %d, max_completion_tokens %d; want %d, %d", r.MaxTokens, r.MaxCompletionTokens, tc.maxTok, tc.maxComp)
			}
		})
	}
}

func TestChatChatterDouble(t *testing.T) {
	// The agent loop sees only Chatter: a plain func-backed double must do.
	var ch model.Chatter = chatFunc(func(context.Context, model.Request) (model.Response, error) {
		return model.Response{Text: "double"}, nil
	})
	if r, _ := ch.Chat(t.Context(), model.Request{}); r.Text != "double" {
		t.Fatal(r)
	}
}

type chatFunc func(context.Context, model.Request) (model.Response, error)

func (f chatFunc) Chat(ctx context.Context, r model.Request) (model.Response, error) {
	return f(ctx, r)
}

func checkCall(t *testing.T, got model.ToolCall, id, name, args string) {
	t.Helper()
	if got.ID != id || got.Name != name || string(got.Arguments) != args {
		t.Errorf("tool call = {%s %s %s}, want {%s %s %s}", got.ID, got.Name, got.Arguments, id, name, args)
	}
}

func jsonEqual(t *testing.T, got, want json.RawMessage) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}

func ptr(f float64) *float64 { return &f }

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
