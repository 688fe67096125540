package broker

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Two gateways trimming one principal's entries at once each counted the same excess and
// dropped its oldest in turn, so the principal lost one more session than the bound asked.
// Trims at once now keep the bound between them: each round adds one entry past it and trims
// twice at once, and the principal still has keep entries.
func TestTrimsAtOnceKeepTheBound(t *testing.T) {
	s := openStores(t)
	a, b := startClient(t, s, ClientOptions{}), startClient(t, s, ClientOptions{})
	const principal, keep = "ci", 3
	write := func(i int) {
		require.NoError(t, a.UpdateSessionDevice(t.Context(), PrincipalSessionKey(principal, fmt.Sprintf("s%d", i)), func(d *SessionDefault) bool {
			d.Client = "c"
			return true
		}))
	}
	for i := range keep {
		write(i)
	}
	for round := range 20 {
		write(keep + round)
		var wg sync.WaitGroup
		for _, c := range []*Client{a, b} {
			wg.Go(func() {
				_, err := c.TrimPrincipalSessions(t.Context(), principal, keep)
				require.NoError(t, err)
			})
		}
		wg.Wait()
		held := 0
		for i := range keep + round + 1 {
			if _, ok := a.SessionDevice(t.Context(), PrincipalSessionKey(principal, fmt.Sprintf("s%d", i))); ok {
				held++
			}
		}
		require.Equal(t, keep, held, "round %d: the principal's entries after two trims at once", round)
	}
}
