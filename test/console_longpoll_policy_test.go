package test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// Behind a policy, the gateway hands the console its farm wrapped (quotas); the grid's long
// poll must still see the registry's version through it: on a still farm a waiting page builds
// no grid (corral_console_grids_built_total), where it used to build one every 50 ms.
func TestConsoleLongPollIsQuietBehindAPolicy(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Quiet: true})
	c, base := consoleGateway(t, f)
	farmtest.Eventually(t, 10*time.Second, func() bool { return len(c.Devices()) == 3 }, "the gateway sees the 3 phones")
	const built = "corral_console_grids_built_total"

	// A first look gives the grid's ETag; the registry settles (the phones' first writes) first.
	var etag string
	farmtest.Eventually(t, 10*time.Second, func() bool {
		before := etag
		etag = gridETag(t, base)
		return etag == before
	}, "the grid settles")
	before := scrape(t, base, built)
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/console/api/devices?wait=1", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+readerToken)
	req.Header.Set("If-None-Match", etag)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close() // the farm changed after all: the count below says whether it rebuilt for nothing
	}
	if got := scrape(t, base, built) - before; got > 2 {
		t.Errorf("a long poll on a still farm built the grid %v times in 1.5 s behind a policy; want at most 2", got)
	}
}

// gridETag is the reader's grid's ETag now.
func gridETag(t *testing.T, base string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/console/api/devices", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+readerToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	return resp.Header.Get("ETag")
}
