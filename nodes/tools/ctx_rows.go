package tools

import "context"

// lookRows is how many rows of an image the image helpers (scaling, JPEG) work through
// between two looks at their ctx (a whole number of the JPEG's 16-row MCUs): a fraction of a
// millisecond of work, so that a task whose deadline passed stops at once, and a look costs
// nothing beside it.
const lookRows = 64

// workEnded is ctx's cause once ctx is done, else nil: image work that stops with its task
// says why (its deadline, an abort), not only "context canceled".
func workEnded(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
}
