package model_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// One turn of an agent loop: the model sees the goal and the tools, and calls one.
func ExampleClient_Chat() {
	srv := modelsim.New(modelsim.Call(modelsim.ToolCall{Name: "tap", Arguments: `{"x":0.5,"y":0.9}`}))
	defer srv.Close()

	c, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "qwen2.5vl"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := c.Chat(context.Background(), model.Request{
		Messages: []model.Message{{Role: model.RoleUser, Text: "Open the app drawer"}},
		Tools: []model.Tool{{Name: "tap", Description: "Tap a point, coordinates 0-1",
			Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}}}`)}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, call := range resp.ToolCalls {
		fmt.Println(call.Name, string(call.Arguments))
	}
	// Output: tap {"x":0.5,"y":0.9}
}

// With no model configured, the node says what to set.
func ExampleConfig_Validate() {
	fmt.Println(model.Config{}.Validate())
	// Output: agent tasks need a model: set OPENAI_MODEL (with OPENAI_API_KEY for OpenAI's API, or OPENAI_BASE_URL for another server), e.g. for Ollama OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=qwen2.5vl
}
