package tools

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tap_cv's imagePath that is base64 too short to be taken for it unseen ("aGVsbG8=", hello)
// is told as base64 that is not an image, not as a missing file; a file of such a name is
// still read as a file, and a path that is no base64 still told missing.
func TestShortBase64TemplateIsNotAnImage(t *testing.T) {
	t.Chdir(t.TempDir())
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, image.NewGray(image.Rect(0, 0, 10, 10))))
	require.NoError(t, os.WriteFile("icon", buf.Bytes(), 0o600))
	screen := image.Pt(1080, 2400)

	_, err := loadTemplate("aGVsbG8=", false, screen)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the template (base64, as no file on the node has that name) is not an image: give a PNG or JPEG")
	_, err = loadTemplate("aGVsbG8=", true, screen)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the template (base64: this node serves a shared farm and reads no files for callers) is not an image")

	tm, err := loadTemplate("icon", false, screen)
	require.NoError(t, err)
	assert.Equal(t, "a file", tm.from)
	assert.Equal(t, image.Pt(10, 10), tm.size)

	_, err = loadTemplate("nope.png", false, screen)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no such file on the node")
}
