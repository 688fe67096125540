package test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Typed text is a secret (a password typed into a login form): the caller gets its answer, but
// no task record keeps it: not get_task_result, not get_latest_task, not the event stream on
// NATS, not the JetStream store on disk. Only the task request (which the node needs) and the
// reply to the caller carry it.
func TestTypedTextStaysOutOfRecords(t *testing.T) {
	const secret, clip = "corral-planted-secret-7f3a", "corral-clipboard-secret-91c2"
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	traffic := sniff(t, f)
	serial := f.Devices()[0].Serial
	c := f.Client("typist")

	farmtest.MustCall(t, c, "app_launch", args("serial", serial, "packageName", "com.corral.notes"))
	res := farmtest.MustCall(t, c, "input", args("serial", serial, "text", secret))
	assert.Contains(t, farmtest.Text(res), secret, "the caller's own answer keeps what it typed")
	input := records(t, c)
	farmtest.MustCall(t, c, "send_to_clipboard", args("serial", serial, "text", clip))
	clipboard := records(t, c)
	farmtest.MustCall(t, c, "sequence", args("serial", serial, "steps", []any{
		map[string]any{"tool_name": "send_to_clipboard", "args": map[string]any{"text": clip}},
		map[string]any{"tool_name": "input", "args": map[string]any{"text": secret}},
	}))
	seq := records(t, c)
	for _, r := range []string{input, clipboard, seq} {
		assert.NotContains(t, r, secret)
		assert.NotContains(t, r, clip)
	}
	assert.Contains(t, input, `"text":"`+broker.Redacted+`"`, "input's record says that its text was redacted")

	// Every record reached the event stream before looking at it.
	farmtest.Eventually(t, 10*time.Second, func() bool {
		return strings.Count(traffic.String(), ".events.task.") >= 3
	}, "three task records on NATS")
	for _, line := range strings.Split(traffic.String(), "\n") {
		subject, _, _ := strings.Cut(line, " ")
		if strings.HasSuffix(subject, ".task") || strings.HasPrefix(subject, "_INBOX") {
			continue // the request the node needs, and the caller's answer
		}
		require.NotContains(t, line, secret, "secret on %s", subject)
		require.NotContains(t, line, clip, "secret on %s", subject)
	}

	store := f.NATS.JetStreamConfig().StoreDir
	require.NoError(t, filepath.WalkDir(store, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		require.False(t, bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte(clip)), "secret in the JetStream store: %s", path)
		return nil
	}))
}

// records returns what get_latest_task and get_task_result say of the caller's latest task.
func records(t *testing.T, c *client.Client) string {
	t.Helper()
	latest := farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true))
	var rec mcp.TaskRecordResult
	farmtest.Structured(t, latest, &rec)
	byID := farmtest.MustCall(t, c, "get_task_result", args("task_id", rec.TaskID))
	return farmtest.Text(latest) + "\n" + farmtest.Text(byID)
}
