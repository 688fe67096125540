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

// A build stamped with git describe (make build) says its commit, however GOFLAGS set
// -buildvcs: the versions of a mixed farm tell apart.
func TestVersionOfADescribedBuild(t *testing.T) {
	described = "1a2b3c4d5e6f-dirty"
	t.Cleanup(func() { described = "" })
	assert.Equal(t, "0.1.0-dev+1a2b3c4d5e6f.dirty", Version())

	release = "1.2.3"
	t.Cleanup(func() { release = "" })
	assert.Equal(t, "1.2.3", Version(), "a release says its release")
}

func TestDescribedMetadata(t *testing.T) {
	for d, want := range map[string]string{
		"":                          "",
		"  \n":                      "",
		"-dirty":                    "",
		"1a2b3c4":                   "+1a2b3c4",
		"1a2b3c4d5e6f-dirty\n":      "+1a2b3c4d5e6f.dirty",
		"v0.2.0-3-g1a2b3c4d5e6f":    "+v0.2.0-3-g1a2b3c4d5e6f",
		"v0.2.0..rc/1_x-dirty":      "+v0.2.0.rc-1-x.dirty",
		"release/2026+hotfix-dirty": "+release-2026-hotfix.dirty",
	} {
		got := describedMetadata(d)
		assert.Equal(t, want, got, "%q", d)
		assert.Regexp(t, semver, devVersion+got, "%q", d)
	}
}
