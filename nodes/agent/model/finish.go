package model

// Finish reasons the caller acts on (Response.FinishReason).
const (
	// FinishLength: the model's token limit ended the answer, whatever it had written by then
	// (tool calls with their arguments cut off, or nothing at all).
	FinishLength = "length"
	// FinishContentFilter: the server's content filter withheld the answer.
	FinishContentFilter = "content_filter"
)

// Final says whether an answer that ended for finish is what asking again gets too: the
// same conversation meets the same token limit, or the same filter.
func Final(finish string) bool {
	return finish == FinishLength || finish == FinishContentFilter
}

// LengthHint is what to do about a model whose token limit cut its answer short.
const LengthHint = "use a model with a larger output limit (or raise the server's own, e.g. Ollama's num_predict or num_ctx), " +
	"or give the task a shorter goal or a lower maxSteps, so the conversation leaves the model room to answer"
