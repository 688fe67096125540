package model

import (
	"context"
	"encoding/json"
)

// Chatter is what the agent loop needs from a language model: one chat turn. Client is the
// real one; a test double only has to answer Chat.
type Chatter interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Request is one chat turn: the conversation so far and the tools the model may call.
type Request struct {
	Messages []Message
	Tools    []Tool
	// MaxTokens caps the answer; 0 leaves it to the server. OpenAI's reasoning models (o1,
	// o3, o4, gpt-5) get it as max_completion_tokens, the only form they take.
	MaxTokens int
	// Temperature is left to the server when nil. Zero is sent as 1e-6 because go-openai
	// omits a zero temperature; samplers treat that as greedy. OpenAI's reasoning models
	// allow no other temperature than their own, so it is dropped for them.
	Temperature *float64
	// Stream asks for the answer as server-sent events, so OnDelta sees text as it comes.
	Stream bool
	// OnDelta, when set, receives the answer's text: piece by piece when streaming, else once
	// whole. It runs on the caller's goroutine and must not block for long.
	OnDelta func(text string)
}

// Message is one entry of the conversation.
type Message struct {
	Role string
	Text string
	// Images go with a user message (screenshots); they are sent as data: URLs.
	Images []Image
	// ToolCalls are what an assistant message asked for, replayed in the history.
	ToolCalls []ToolCall
	// ToolCallID says which call a tool message answers.
	ToolCallID string
	// Name optionally names the author of a message.
	Name string
}

// Image is an encoded picture. MIME may be empty: it is then sniffed from Data.
type Image struct {
	MIME string
	Data []byte
}

// Tool is a function the model may call; Parameters is its JSON schema (an object schema;
// empty means no arguments).
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// ToolCall is one call the model asked for. Arguments are what the model wrote ("{}" when it
// wrote nothing): usually a JSON object, but a weak model can write anything, so validate them
// against the tool's schema before use.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Response is the model's answer: text, tool calls, or both.
type Response struct {
	Text      string
	ToolCalls []ToolCall
	// FinishReason is the server's: "stop", "tool_calls", "length", "content_filter", ...
	FinishReason string
	Usage        Usage
}

// Usage counts tokens as the server reported them (zero when it did not).
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
}

// Add sums usage over several turns, for a task's total.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.PromptTokens + o.PromptTokens, u.CompletionTokens + o.CompletionTokens, u.TotalTokens + o.TotalTokens}
}
