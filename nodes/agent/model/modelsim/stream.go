package modelsim

import (
	"encoding/json"
	"net/http"
)

type delta struct {
	Role      string     `json:"role,omitempty"`
	Content   *string    `json:"content,omitempty"`
	ToolCalls []wireCall `json:"tool_calls,omitempty"`
}

type streamChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type chunk struct {
	ID      string         `json:"id"`
	Object  string         `json:"object"`
	Created int64          `json:"created"`
	Model   string         `json:"model"`
	Choices []streamChoice `json:"choices"`
	// Usage is null on every chunk but the last when the client asked for it, absent otherwise.
	Usage *wireUsage `json:"usage,omitempty"`
}

// stream sends an answer as OpenAI does: a role chunk, the text in pieces, each tool call
// as a chunk with its ID and name followed by its arguments in pieces, a finish chunk, a
// usage chunk when asked for, then [DONE]. Each chunk is flushed on its own. cut drops the
// connection instead of the finish chunk; hold, when set, pauses it after the first piece of
// text until it is closed.
func (s *Server) stream(w http.ResponseWriter, req Request, text string, calls []wireCall, finish string, u wireUsage, cut bool, hold <-chan struct{}) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	send := func(c chunk) bool {
		select {
		case <-s.closing:
			return false
		default:
		}
		b, _ := json.Marshal(c)
		if req.IncludeUsage && c.Usage == nil {
			// json cannot say "null here, absent there" with one struct: splice the null in.
			b = append(b[:len(b)-1], []byte(`,"usage":null}`)...)
		}
		if _, err := w.Write(append(append([]byte("data: "), b...), '\n', '\n')); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	one := func(d delta, finish *string) chunk {
		return chunk{ID: "chatcmpl-modelsim", Object: "chat.completion.chunk", Created: created, Model: req.Model,
			Choices: []streamChoice{{Delta: d, FinishReason: finish}}}
	}
	empty := ""
	if !send(one(delta{Role: "assistant", Content: &empty}, nil)) {
		return
	}
	for i, p := range split(text, piece) {
		if !send(one(delta{Content: &p}, nil)) {
			return
		}
		if i == 0 && hold != nil {
			select {
			case <-hold:
			case <-s.closing:
				return
			}
		}
	}
	for i, c := range calls {
		head := c
		head.Index = &i
		head.Function.Arguments = ""
		if !send(one(delta{ToolCalls: []wireCall{head}}, nil)) {
			return
		}
		for _, p := range split(c.Function.Arguments, piece) {
			var d wireCall
			d.Index, d.Function.Arguments = &i, p
			if !send(one(delta{ToolCalls: []wireCall{d}}, nil)) {
				return
			}
		}
	}
	if cut {
		drop(w)
	}
	if !send(one(delta{}, &finish)) {
		return
	}
	if req.IncludeUsage && !send(chunk{ID: "chatcmpl-modelsim", Object: "chat.completion.chunk", Created: created, Model: req.Model,
		Choices: []streamChoice{}, Usage: &u}) {
		return
	}
	_, _ = w.Write([]byte("data: [DONE]\n\n"))
	if fl != nil {
		fl.Flush()
	}
}
