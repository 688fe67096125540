package modelsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// created is the fixed timestamp of every answer, so answers compare equal across runs.
const created = 1700000000

// piece is how many runes of text or arguments go in one stream chunk: small enough that
// every answer is split, as a real server splits by token.
const piece = 5

type wireCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// answer sends turn as the reply to req, as JSON or as a stream.
func (s *Server) answer(w http.ResponseWriter, req Request, turn Turn) {
	for k, v := range turn.Header {
		w.Header().Set(k, v)
	}
	if turn.Status >= 400 {
		writeError(w, turn.Status, turn.Error)
		return
	}
	if turn.Raw != "" {
		ct := "application/json"
		if req.Stream {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(max(turn.Status, http.StatusOK))
		_, _ = w.Write([]byte(turn.Raw))
		return
	}
	calls := make([]wireCall, len(turn.ToolCalls))
	for i, tc := range turn.ToolCalls {
		calls[i].ID, calls[i].Type = tc.ID, "function"
		if tc.ID == "" {
			calls[i].ID = fmt.Sprintf("call_%d", i+1)
		}
		calls[i].Function.Name, calls[i].Function.Arguments = tc.Name, tc.Arguments
	}
	finish := turn.FinishReason
	if finish == "" {
		finish = "stop"
		if len(calls) > 0 {
			finish = "tool_calls"
		}
	}
	u := usage(req, turn)
	if req.Stream {
		s.stream(w, req, turn.Text, calls, finish, u, turn.Cut, turn.Hold)
		return
	}
	var content *string
	if turn.Text != "" || len(calls) == 0 {
		content = &turn.Text // OpenAI sends null content with tool calls alone
	}
	type message struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		ToolCalls []wireCall `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	}
	body := struct {
		ID      string    `json:"id"`
		Object  string    `json:"object"`
		Created int64     `json:"created"`
		Model   string    `json:"model"`
		Choices []choice  `json:"choices"`
		Usage   wireUsage `json:"usage"`
	}{"chatcmpl-modelsim", "chat.completion", created, req.Model,
		[]choice{{Message: message{Role: "assistant", Content: content, ToolCalls: calls}, FinishReason: finish}}, u}
	if turn.Cut {
		b, _ := json.Marshal(body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b[:len(b)/2])
		drop(w)
	}
	writeJSON(w, http.StatusOK, body)
}

// drop sends what was written and closes the connection without ending the response, so the
// client reads a truncated body. It does not return.
func drop(w http.ResponseWriter) {
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	panic(http.ErrAbortHandler) // net/http closes the connection, and logs nothing for this value
}

// usage is the turn's, or a rough count: about four bytes a token.
func usage(req Request, turn Turn) wireUsage {
	if turn.Usage != nil {
		return wireUsage{turn.Usage.PromptTokens, turn.Usage.CompletionTokens, turn.Usage.PromptTokens + turn.Usage.CompletionTokens}
	}
	out := len(turn.Text)
	for _, tc := range turn.ToolCalls {
		out += len(tc.Name) + len(tc.Arguments)
	}
	p, c := (len(req.Body)+3)/4, (out+3)/4
	return wireUsage{p, c, p + c}
}

// split cuts s into pieces of at most n runes, never inside a rune: a server streams whole
// tokens, so every piece is valid UTF-8.
func split(s string, n int) []string {
	var out []string
	for s != "" {
		i, runes := 0, 0
		for i < len(s) && runes < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			runes++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers as OpenAI does: {"error": {"message", "type", "param", "code"}}.
func writeError(w http.ResponseWriter, status int, msg string) {
	typ, code := "invalid_request_error", any(nil)
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusNotFound:
		code = "model_not_found"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	type apiError struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    any     `json:"code"`
	}
	writeJSON(w, status, struct {
		Error apiError `json:"error"`
	}{apiError{Message: msg, Type: typ, Code: code}})
}
