package agent

// cutShort is why an answer's tool calls could not be read when the model's token limit ended
// it (model.FinishLength): their arguments are cut off, not wrongly made, and a model that
// follows tool schemas better would be cut off all the same.
const cutShort = "cut short by its token limit (finish_reason length)"
