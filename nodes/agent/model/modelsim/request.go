package modelsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Request is a chat request as the server received it, decoded.
type Request struct {
	Model    string
	Messages []Message
	Tools    []Tool
	Stream   bool
	// IncludeUsage is stream_options.include_usage.
	IncludeUsage        bool
	MaxTokens           int
	MaxCompletionTokens int
	Temperature         *float64
	// Authorization is the header as sent ("Bearer sk-...").
	Authorization string
	// Body is the whole request body, for anything the fields above leave out.
	Body json.RawMessage
	// Received is when the server had read the request.
	Received time.Time
}

// Message is one message of a request. Text joins the text parts of a multi-part content;
// Images are the URLs of its image_url parts (data: URLs for screenshots).
type Message struct {
	Role       string
	Text       string
	Images     []string
	ToolCalls  []ToolCall
	ToolCallID string
	Name       string
}

// Tool is a function the request offered the model.
type Tool struct {
	Type        string
	Name        string
	Description string
	Parameters  json.RawMessage
}

// wireRequest is the chat-completions request body.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Name       string          `json:"name"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int      `json:"max_tokens"`
	MaxCompletionTokens int      `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
}

// contentPart is one part of a multi-part content.
type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// decodeRequest parses a chat-completions body. Content may be a string, null, or a list
// of parts.
func decodeRequest(body []byte) (Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, fmt.Errorf("body is not a chat-completions request: %w", err)
	}
	if w.Model == "" {
		return Request{}, errors.New("request names no model")
	}
	r := Request{Model: w.Model, Stream: w.Stream, MaxTokens: w.MaxTokens, MaxCompletionTokens: w.MaxCompletionTokens,
		Temperature: w.Temperature, Body: json.RawMessage(body)}
	if w.StreamOptions != nil {
		r.IncludeUsage = w.StreamOptions.IncludeUsage
	}
	for i, wm := range w.Messages {
		m := Message{Role: wm.Role, Name: wm.Name, ToolCallID: wm.ToolCallID}
		if err := decodeContent(wm.Content, &m); err != nil {
			return Request{}, fmt.Errorf("message %d: %w", i, err)
		}
		for _, tc := range wm.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		r.Messages = append(r.Messages, m)
	}
	for _, wt := range w.Tools {
		r.Tools = append(r.Tools, Tool{Type: wt.Type, Name: wt.Function.Name, Description: wt.Function.Description, Parameters: wt.Function.Parameters})
	}
	return r, nil
}

func decodeContent(raw json.RawMessage, m *Message) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, &m.Text); err == nil {
		return nil
	}
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return errors.New("content is neither a string nor a list of parts")
	}
	var text []string
	for i, p := range parts {
		switch p.Type {
		case "text":
			text = append(text, p.Text)
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return fmt.Errorf("content part %d is an image_url without a url", i)
			}
			m.Images = append(m.Images, p.ImageURL.URL)
		default:
			return fmt.Errorf("content part %d has unknown type %q", i, p.Type)
		}
	}
	m.Text = strings.Join(text, "\n")
	return nil
}
