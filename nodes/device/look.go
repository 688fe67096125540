package device

import "context"

// A look at a device is not a use of it: the console's live screen looks between a holder's
// calls, and a driver that starts its device at first use (an elastic browser, which stops
// again after an idle time) neither starts it nor counts the look as use. A driver without
// such a device ignores the mark.

// lookKey marks a context as a look's.
type lookKey struct{}

// Look marks ctx as a look's, not a use's.
func Look(ctx context.Context) context.Context { return context.WithValue(ctx, lookKey{}, true) }

// IsLook says whether ctx is a look's (Look).
func IsLook(ctx context.Context) bool {
	look, _ := ctx.Value(lookKey{}).(bool)
	return look
}
