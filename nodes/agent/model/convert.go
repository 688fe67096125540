package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	openai "github.com/sashabaranov/go-openai"
)

// toolName is OpenAI's rule for function names; other servers are laxer, so keeping to it
// keeps a tool catalogue portable.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// emptySchema is the parameters of a tool without arguments: some servers reject a tool
// whose parameters are missing.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// chatRequest builds go-openai's request from ours. Mistakes the server would answer with a
// bare 400 are caught here, with what to change.
func chatRequest(model string, req Request) (openai.ChatCompletionRequest, error) {
	out := openai.ChatCompletionRequest{Model: model, Stream: req.Stream}
	if len(req.Messages) == 0 {
		return out, errors.New("chat request has no messages: give at least the user's goal")
	}
	for i, m := range req.Messages {
		om, err := chatMessage(m)
		if err != nil {
			return out, fmt.Errorf("message %d (%s): %w", i, m.Role, err)
		}
		out.Messages = append(out.Messages, om)
	}
	for _, t := range req.Tools {
		ot, err := chatTool(t)
		if err != nil {
			return out, err
		}
		out.Tools = append(out.Tools, ot)
	}
	if req.MaxTokens < 0 {
		return out, fmt.Errorf("MaxTokens %d is negative: use 0 for the server's default", req.MaxTokens)
	}
	out.MaxTokens = req.MaxTokens
	if t := req.Temperature; t != nil {
		if *t < 0 || *t > 2 {
			return out, fmt.Errorf("temperature %g is outside 0..2", *t)
		}
		out.Temperature = max(float32(*t), 1e-6)
	}
	if req.Stream {
		// Usage comes in a last chunk only when asked for.
		out.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	return fitReasoningModel(out), nil
}

// fitReasoningModel adapts a request to the limits go-openai checks for OpenAI's reasoning
// models (o1, o3, o4, gpt-5): they take max_completion_tokens, not max_tokens, and a fixed
// temperature. Other models, and every other server's, pass unchanged.
func fitReasoningModel(r openai.ChatCompletionRequest) openai.ChatCompletionRequest {
	v := openai.NewReasoningValidator()
	if errors.Is(v.Validate(r), openai.ErrReasoningModelMaxTokensDeprecated) {
		r.MaxCompletionTokens, r.MaxTokens = r.MaxTokens, 0
	}
	if err := v.Validate(r); errors.Is(err, openai.ErrReasoningModelLimitationsOther) || errors.Is(err, openai.ErrReasoningSamplingUnsupported) {
		r.Temperature = 0
	}
	return r
}

func chatMessage(m Message) (openai.ChatCompletionMessage, error) {
	om := openai.ChatCompletionMessage{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID}
	switch m.Role {
	case RoleSystem, RoleUser:
		if m.Text == "" && len(m.Images) == 0 {
			return om, errors.New("empty message: give text or images")
		}
	case RoleAssistant:
		if m.Text == "" && len(m.ToolCalls) == 0 {
			return om, errors.New("empty assistant message: replay the model's text or tool calls")
		}
	case RoleTool:
		if m.ToolCallID == "" {
			return om, errors.New("tool message without ToolCallID: set it to the ID of the call it answers")
		}
		if m.Text == "" {
			return om, fmt.Errorf("tool message for call %s has no text: send a result, even just \"ok\"", m.ToolCallID)
		}
	default:
		return om, fmt.Errorf("unknown role %q: use system, user, assistant or tool", m.Role)
	}
	if len(m.Images) > 0 && m.Role != RoleUser {
		return om, errors.New("images go in user messages: OpenAI-compatible servers reject them elsewhere")
	}
	if len(m.ToolCalls) > 0 && m.Role != RoleAssistant {
		return om, errors.New("tool calls go in assistant messages")
	}
	if len(m.Images) == 0 {
		om.Content = m.Text
	} else {
		if m.Text != "" {
			om.MultiContent = append(om.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: m.Text})
		}
		for i, img := range m.Images {
			u, err := DataURL(img)
			if err != nil {
				return om, fmt.Errorf("image %d: %w", i, err)
			}
			om.MultiContent = append(om.MultiContent, openai.ChatMessagePart{
				Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: u}})
		}
	}
	for _, tc := range m.ToolCalls {
		om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: tc.Name, Arguments: string(tc.Arguments)}})
	}
	return om, nil
}

func chatTool(t Tool) (openai.Tool, error) {
	if !toolName.MatchString(t.Name) {
		return openai.Tool{}, fmt.Errorf("tool name %q: use 1 to 64 letters, digits, '_' or '-'", t.Name)
	}
	params := t.Parameters
	if len(params) == 0 {
		params = emptySchema
	}
	var schema map[string]any
	if err := json.Unmarshal(params, &schema); err != nil {
		return openai.Tool{}, fmt.Errorf("tool %s: parameters are not a JSON schema object: %w", t.Name, err)
	}
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: t.Name, Description: t.Description, Parameters: params}}, nil
}
