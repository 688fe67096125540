// Package model is the language-model client of Corral's agent tasks. The agent loop depends
// only on the small Chatter interface; Client implements it for any OpenAI-compatible
// chat-completions server (hosted APIs, vLLM, Ollama, LM Studio) with go-openai: tool calling,
// screenshots as data URLs, and streaming with tool-call deltas reassembled.
//
// Configuration follows the OpenAI ecosystem: OPENAI_BASE_URL, OPENAI_MODEL and OPENAI_API_KEY
// (or their CORRAL_ forms, or flags). The API key is a Secret: it comes from the environment or
// a file, never from a command-line argument, and it prints, marshals and logs as "[redacted]".
//
// Package modelsim is a scripted server for tests of code that uses a Chatter.
package model
