// Package modelsim is a scripted OpenAI-compatible chat-completions server for tests. Each
// request takes the next Turn of the script: text, tool calls, an HTTP error, a raw body, a
// delay, a connection dropped mid-answer, or an answer computed from the request. It answers as real servers do, in JSON or as
// server-sent events with tool-call arguments split over several chunks, and keeps every
// request it received so a test can check what the agent sent. Listen serves a script on a
// given address, as `corral sim model` does for a farm run by hand.
//
// It depends on nothing but the standard library, so it checks the wire format independently
// of any client.
package modelsim
