package tools

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/nodes/device"
)

// A SelectorActor that knows only the first match acts on it, and refuses another index as
// the device's lack (unsupported) rather than act on the wrong element.
func TestFirstOnlyRefusesAnotherIndex(t *testing.T) {
	var got []string
	act := firstOnly(func(_ context.Context, sel string) error { got = append(got, sel); return nil })
	require.NoError(t, act(t.Context(), "li", 0))
	err := act(t.Context(), "li", 2)
	require.Error(t, err)
	assert.True(t, errors.Is(err, device.ErrUnsupported), "%v", err)
	assert.Contains(t, err.Error(), "li:nth-of-type(3)")
	assert.Equal(t, []string{"li"}, got, "index 2 acted on nothing")
}
