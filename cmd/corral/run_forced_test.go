package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A second signal ends a run at once (os.Exit): before it exits, corral says what the run
// leaves behind, the devices it holds leases of and the reports not written, which it said
// nothing of. A run that ends (the first signal) leaves nothing to say.
func TestRunSaysWhatAForcedExitLeavesBehind(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	dir := t.TempDir()
	file := filepath.Join(dir, "steps.yaml")
	require.NoError(t, os.WriteFile(file, []byte("- {method: acquire_device, params: n1-p1}\n- {method: sleep, params: 30}\n"), 0o600))
	report := filepath.Join(dir, "r.xml")
	ctx, left := withLeftBehind(t.Context())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- runRun(ctx, []string{file, "--gateway", f.Gateway().MCPURL, "--junit", report, "--log-level", "error"})
	}()
	said := func() string {
		var b strings.Builder
		left.say(&b)
		return b.String()
	}
	farmtest.Eventually(t, 20*time.Second, func() bool { return strings.Contains(said(), "n1-p1 stays leased") }, "a forced exit says nothing of the lease: %q", said())
	assert.Equal(t, "corral run: n1-p1 stays leased until its lease expires: `corral leases` shows it; `corral release n1-p1 --force` (an operator) frees it now\n"+
		"corral run: no report was written (--junit "+report+")\n", said())

	cancel() // the first signal: the run gives the lease back and writes its report
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the interrupted run did not end")
	}
	assert.Empty(t, said(), "an ended run leaves nothing behind")
	assert.FileExists(t, report)
	res := farmtest.MustCall(t, f.Client("other"), "list_leases", nil)
	assert.NotContains(t, farmtest.Text(res), "n1-p1", "the run kept its lease")
}
