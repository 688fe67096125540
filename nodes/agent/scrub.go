package agent

// scrubber is a model that takes its API key out of text it wrote: model.Client does, of its
// answers; streamed text reaches thinking events in pieces, before the answer is whole.
type scrubber interface{ Scrub(string) string }

// scrub is text with the model's API key taken out, where the model can say what it is.
func (r *runner) scrub(text string) string {
	if s, ok := r.o.Model.(scrubber); ok {
		return s.Scrub(text)
	}
	return text
}
