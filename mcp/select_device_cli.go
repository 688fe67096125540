package mcp

import (
	"context"
	"fmt"
)

// cliClientName is the client name corral call initializes with (cmd/corral): each corral
// call is a connection of its own with a fresh Corral-Caller, so another holder, and what
// select_device says to other clients ("calls naming it without lease run under this lease")
// is untrue for it: the next corral call was refused busy by the selection, held 5 minutes.
const cliClientName = "corral-cli"

// cliSelectionWords is what select_device tells corral call instead: to pass the lease on, as
// corral call takes it; false for other clients.
func cliSelectionWords(ctx context.Context, serial, handle string) (string, bool) {
	if holderFrom(ctx).Client != cliClientName {
		return "", false
	}
	return fmt.Sprintf(" Each corral call is a new holder, so the next one cannot use this selection: export CORRAL_LEASE=%s "+
		"and later corral calls (naming serial %s) run under this lease; release_device {\"serial\":%q} with it set gives it back, "+
		"or it expires when idle.", handle, serial, serial), true
}
