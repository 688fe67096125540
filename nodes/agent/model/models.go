package model

import (
	"context"
	"slices"
)

// Models lists the models the endpoint serves (GET /models), so a node can check its
// configuration at start rather than at its first agent task.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	list, err := c.oc.ListModels(ctx)
	if err != nil {
		return nil, c.explain(ctx, err)
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	return ids, nil
}
