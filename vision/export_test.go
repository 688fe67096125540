package vision

import "context"

// Listens is listens, for the tests of package vision_test, which run a real worker
// (vision/service imports this package, so only an external test package can).
func (c *Client) Listens(ctx context.Context, id string) bool { return c.listens(ctx, id) }
