package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// An interrupted call whose task is not recorded yet names no task rather than the holder's
// previous one, which get_latest_task shows until the new record lands (QA: app_install with
// --timeout 2s pointed at the call before it). The task it did send is still found.
func TestInterruptedCallIgnoresThePreviousTask(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	c := f.Client("holder") // the latest revision: no protocol session, the holder's latest
	serial := f.Devices()[0].Serial
	began := time.Now()
	farmtest.MustCall(t, c, "home", map[string]any{"serial": serial})

	ctx, interrupt := context.WithCancel(t.Context())
	interrupt()
	var it *interruptedTask
	err := withTaskID(ctx, c, sentCall{tool: "sleep", serial: serial, began: time.Now()}, context.Canceled, time.Second)
	assert.False(t, errors.As(err, &it), "named the previous task (home) as the interrupted sleep's: %v", err)

	err = withTaskID(ctx, c, sentCall{tool: "home", serial: serial, began: began}, context.Canceled, 10*time.Second)
	require.True(t, errors.As(err, &it), "the home call's own task not found: %v", err)
	assert.NotEmpty(t, it.id)
}
