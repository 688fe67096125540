package broker

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// A session's entry written while a trim of its principal ran (after the count, before the
// purge) made the purge drop one more than the trim noted: that session then got "serial is
// required" without why. The trim's note writes a new entry, between count and purge: the
// entries the trim did not name all stay.
func TestTrimKeepsWhatItDidNotName(t *testing.T) {
	s := openStores(t)
	c := startClient(t, s, ClientOptions{})
	const principal, keep = "ci", 2
	write := func(session string) {
		require.NoError(t, c.UpdateSessionDevice(t.Context(), PrincipalSessionKey(principal, session), func(d *SessionDefault) bool {
			d.Client = "c"
			return true
		}))
	}
	for i := range keep + 2 {
		write(fmt.Sprintf("s%d", i))
	}
	prefix := PrincipalPrefix(principal)
	var named []string
	_, err := c.trimOldest(t.Context(), prefix, keep, func(key string) error {
		if len(named) == 0 {
			write("during") // between the trim's count and its purge
		}
		named = append(named, key)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{prefix + "s0", prefix + "s1"}, named)
	for _, session := range []string{"s2", "s3", "during"} {
		_, ok := c.SessionDevice(t.Context(), PrincipalSessionKey(principal, session))
		require.True(t, ok, "%s's entry, which the trim did not name, is gone", session)
	}
}

// Latest tasks and ended marks, which no one is told of, are trimmed with one purge.
func TestPurgeOldestKeepsTheNewest(t *testing.T) {
	s := openStores(t)
	c := startClient(t, s, ClientOptions{})
	const principal = "ci"
	for i := range 5 {
		require.NoError(t, c.EndSession(t.Context(), UnderPrincipal(principal, fmt.Sprintf("mcp-%d", i))))
	}
	n, err := c.TrimPrincipalEnded(t.Context(), principal, 2)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	for i := range 5 {
		ended, err := c.SessionEnded(t.Context(), UnderPrincipal(principal, fmt.Sprintf("mcp-%d", i)))
		require.NoError(t, err)
		require.Equal(t, i >= 3, ended, "mcp-%d ended", i)
	}
	n, err = c.TrimPrincipalEnded(t.Context(), principal, 2)
	require.NoError(t, err)
	require.Zero(t, n)
}
