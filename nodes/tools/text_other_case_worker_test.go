//go:build vision

package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/vision/corpus"
)

// Where only OCR reads the screen, a text asked in another case than the OCR read it is not
// found (not_found), and the error names what the OCR read and how to match any case; the
// call it suggests taps it.
func TestWorkerTapOCRSaysATextShowsInAnotherCase(t *testing.T) {
	ops := DefaultOpsWith(OpsConfig{Vision: visionWorker(t)})
	s := smallScreen(t, corpus.Settings, 1)
	el := s.Elements[1] // a list row
	asked := strings.ToLower(el.Text)
	require.NotEqual(t, el.Text, asked, "the row reads in lower case already")

	p := &corpusPhone{s: s}
	args, _ := json.Marshal(map[string]any{"text": asked})
	_, err := ops["tap_ocr"].Run(context.Background(), &Task{Driver: p, Args: args})
	require.Error(t, err)
	assert.Equal(t, broker.CodeNotFound, ErrorCode(err))
	assert.Contains(t, err.Error(), "did you mean")
	assert.Contains(t, err.Error(), `matches case-sensitively: pass regex true and text "(?i)`)
	assert.Empty(t, p.taps, "nothing tapped")

	args, _ = json.Marshal(map[string]any{"text": "(?i)" + asked, "regex": true})
	out, err := ops["tap_ocr"].Run(context.Background(), &Task{Driver: p, Args: args})
	require.NoError(t, err, "the call the hint gives")
	assert.Equal(t, SourceOCR, out.Data.(TapTextResult).Source)
	assert.True(t, strings.EqualFold(el.Text, out.Data.(TapTextResult).Text), "tapped %q, not the row %q", out.Data.(TapTextResult).Text, el.Text)
}
