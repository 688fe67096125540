package tools

// MessageResult is the structured result of actions that only confirm (HttpRunner seed).
type MessageResult struct {
	Message string `json:"message" jsonschema:"Success message confirming the operation"`
	Hint    string `json:"hint,omitempty"`
}
