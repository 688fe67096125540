package tools

// MessageResult is the structured result of actions that only confirm (HttpRunner seed).
type MessageResult struct {
	Message string `json:"message" jsonschema:"What was done"`
	Hint    string `json:"hint,omitempty"`
}
