package broker

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

// The corral CLI's front door runs as the admin user and bounds a principal's ended marks and
// latest tasks as a gateway does, with one purge of the sessions' stream: the admin user may
// send it (the server refused it, logging a publish violation at ERROR on each CLI call, and
// nothing was trimmed).
func TestAdminTrimsAPrincipalsKeys(t *testing.T) {
	f := startNodeUsersNATS(t)
	_, err := EnsureStores(t.Context(), f.connect("gateway", slog.New(slog.DiscardHandler)), StoreOptions{})
	require.NoError(t, err)
	nc := f.connect(UserName(RoleAdmin, ""), slog.New(slog.DiscardHandler))
	s, err := OpenStores(t.Context(), nc, ClientStores...)
	require.NoError(t, err)
	c := startClient(t, s, ClientOptions{})
	const principal = "ci"
	for i := range 4 {
		require.NoError(t, c.EndSession(call(t), UnderPrincipal(principal, fmt.Sprintf("mcp-%d", i))))
	}
	n, err := c.TrimPrincipalEnded(call(t), principal, 1)
	require.NoError(t, err, "the admin's trim of ended marks")
	require.Equal(t, 3, n)
}
