package modelsim

import "time"

// Turn is the scripted answer to one chat request. Without Status, Raw or Reply it is a
// normal answer: Text, ToolCalls, or both.
type Turn struct {
	Text      string
	ToolCalls []ToolCall
	// FinishReason defaults to "tool_calls" when there are calls, else "stop".
	FinishReason string
	// Usage defaults to a count from the sizes of the request and the answer.
	Usage *Usage
	// Status, when 400 or more, answers with an OpenAI-style error whose message is Error.
	Status int
	Error  string
	// Raw, when set, is sent verbatim as the body (with Status, else 200): garbage, or a
	// stream cut short.
	Raw string
	// Header is sent with the answer, whatever it is (e.g. Retry-After with a 429).
	Header map[string]string
	// Delay holds the answer back; the request's context or Close cut it short.
	Delay time.Duration
	// Cut drops the connection mid-answer, as a server or proxy that dies does: a stream after
	// its text and tool calls, before the finish; a JSON answer halfway through its body.
	Cut bool
	// Reply, when set, computes the turn from the request (its own Reply is ignored).
	Reply func(Request) Turn
	// Hold, when set, pauses a streamed answer after its first piece of text until it is
	// closed (or the server closes), as a slow model between two tokens.
	Hold <-chan struct{}
}

// ToolCall is a call the scripted model makes. Arguments is sent as written, so a test can
// send broken JSON too. An empty ID is filled in as call_<n>.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Usage is the token count reported with an answer.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Say is a turn that answers text.
func Say(text string) Turn { return Turn{Text: text} }

// Call is a turn that calls tools.
func Call(calls ...ToolCall) Turn { return Turn{ToolCalls: calls} }

// Fail is a turn that answers an HTTP error.
func Fail(status int, message string) Turn { return Turn{Status: status, Error: message} }
