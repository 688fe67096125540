package buildinfo

import (
	"regexp"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// semver is the grammar NATS micro services check a version against (semver.org).
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

func TestVersion(t *testing.T) {
	assert.Regexp(t, semver, Version())

	release = "v1.2.3"
	t.Cleanup(func() { release = "" })
	assert.Equal(t, "1.2.3", Version(), "a release build says its release")
}

func TestVCSMetadata(t *testing.T) {
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, ""},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}}, "+0123456789ab"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}, "+abc.dirty"},
	} {
		got := vcsMetadata(c.settings)
		assert.Equal(t, c.want, got)
		assert.Regexp(t, semver, devVersion+got)
	}
}
