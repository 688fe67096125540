package test

import (
	"fmt"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// Simultaneous acquire_device calls of one session are all remembered for release_device
// without a lease: the session's list of leases is changed by compare-and-set, not read,
// changed and written back (which lost all but one of them). release_device {} then names
// every one of them and releases none.
func TestConcurrentAcquiresAreAllRemembered(t *testing.T) {
	const n = 6
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: n, Quiet: true})
	c := f.ClientWithProtocol("alice", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION) // a revision with sessions
	devs := f.Devices()
	answers := make([]<-chan farmtest.Answer, n)
	for i := range n {
		answers[i] = farmtest.Go(t, c, "acquire_device", args("serial", devs[i].Serial))
	}
	for i, a := range answers {
		if res := (<-a).Get(t); res.IsError {
			t.Fatalf("acquire_device %s: %s", devs[i].Serial, farmtest.Text(res))
		}
	}

	res := farmtest.Call(t, c, "release_device", args())
	text := farmtest.Text(res)
	require.True(t, res.IsError, "released one of %d leases unasked: %s", n, text)
	contains(t, text, fmt.Sprintf("holds %d leases", n))
	for _, d := range devs[:n] {
		contains(t, text, "the lease of "+d.Serial+" (acquire_device)")
	}
	leases, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	require.Len(t, leases, n, "release_device {} released some")
}
