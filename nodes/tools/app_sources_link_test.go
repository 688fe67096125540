package tools

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A link in a source directory to a directory outside (/apps/etclink -> /etc) made
// app_install an existence oracle: /apps/etclink/shadow got "not among the app sources",
// /apps/etclink/nonexistent "no file at …". A path is judged where it would lie once the
// links of its existing part are resolved: both read the same now, as do dangling links and
// a "..", and a missing file inside the sources is still named as missing.
func TestAppSourcesLinkOutTellsNothingOfWhatExists(t *testing.T) {
	dir := t.TempDir()
	apps, outside := filepath.Join(dir, "apps"), filepath.Join(dir, "etc")
	require.NoError(t, os.MkdirAll(apps, 0o700))
	require.NoError(t, os.MkdirAll(outside, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "shadow"), []byte("root:x"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(apps, "etclink")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "shadow"), filepath.Join(apps, "to-shadow")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "nothing"), filepath.Join(apps, "to-nothing")))
	c := OpsConfig{Shared: true, AppSources: []string{apps}}

	answer := func(app string) string {
		t.Helper()
		d, paths, _ := installer()
		_, _, err := runInstallWith(t, context.Background(), c, d, app)
		wantCode(t, err, broker.CodeBadInput)
		assert.Empty(t, *paths, "%s reached the device", app)
		return err.Error()
	}
	name := regexp.MustCompile(`[^ ]*(shadow|nothing)[^ ]*`)
	refusal := name.ReplaceAllString(answer(filepath.Join(apps, "etclink", "shadow")), "X")
	assert.Contains(t, refusal, "not among the app sources")
	for _, app := range []string{
		filepath.Join(apps, "etclink", "nothing"),
		filepath.Join(apps, "etclink", "nothing", "deeper"),
		filepath.Join(apps, "etclink", "shadow", "deeper"),
		filepath.Join(apps, "to-shadow"),
		filepath.Join(apps, "to-nothing"),
		apps + "/etclink/../nothing",
	} {
		assert.Equal(t, refusal, name.ReplaceAllString(answer(app), "X"), "%s reads otherwise than a file that exists outside", app)
	}
	assert.Contains(t, answer(filepath.Join(apps, "nothing.apk")), "no file at", "a missing file within the sources")
}
