package test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/redact"
	"github.com/corral-farm/corral/mcp"
)

// QA: a short secret was replaced inside every word of its task's record: input {"text":"e"}
// on the sim phone recorded "hint":"p[redacted][redacted]k to ch[redacted]ck th[redacted]
// t[redacted]xt", and the marks spelled the letter out. Now a record names its device and says
// what happened in full words, its own text field is blanked whatever the length of what was
// typed, and a secret from redact.AnywhereRunes characters on is nowhere in it, nor anywhere on
// the event stream.
func TestShortSecretsLeaveRecordsReadable(t *testing.T) {
	const long = "s3cret plant" // 12 characters: out wherever it shows
	require.GreaterOrEqual(t, utf8.RuneCountInString(long), redact.AnywhereRunes)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	traffic := sniff(t, f)
	serial := f.Devices()[0].Serial
	c := f.Client("typist")
	secrets := []string{"e", "web", long}

	// On the home screen no field has focus: the refusal says so, with each secret.
	farmtest.MustCall(t, c, "home_screen", args("serial", serial))
	for _, secret := range secrets {
		res := farmtest.Call(t, c, "input", args("serial", serial, "text", secret))
		require.True(t, res.IsError, "input with no field focused: %s", farmtest.Text(res))
		rec, all := lastTaskRecord(t, c)
		require.NotNil(t, rec.Error, "the refused input's record has its error")
		t.Logf("typed %q on the home screen, recorded error: %s", secret, *rec.Error)
		assert.Equal(t, serial, rec.Serial)
		assert.Contains(t, *rec.Error, "device "+serial+": ", "the record names its device whole")
		assert.Contains(t, *rec.Error, "no text field has focus", "the record says why, in full words")
		assert.NotContains(t, all, long)
	}

	farmtest.MustCall(t, c, "app_launch", args("serial", serial, "packageName", "com.corral.notes"))
	for _, secret := range secrets {
		res := farmtest.MustCall(t, c, "input", args("serial", serial, "text", secret))
		assert.Contains(t, farmtest.Text(res), secret, "the caller's own answer keeps what it typed")
		rec, all := lastTaskRecord(t, c)
		t.Logf("typed %q, recorded data: %v", secret, rec.Data)
		data, ok := rec.Data.(map[string]any)
		require.True(t, ok, "input's record has its data: %v", rec.Data)
		assert.Equal(t, broker.Redacted, data["text"], "the text typed is blanked, %d characters or not", len(secret))
		assert.Equal(t, fmt.Sprintf("typed %d characters", utf8.RuneCountInString(secret)), data["message"])
		assert.Equal(t, "peek to check the text landed in the right field.", data["hint"])
		assert.NotContains(t, all, long)
	}

	// Every record reached the event stream, with the long secret in none of them.
	farmtest.Eventually(t, 10*time.Second, func() bool {
		return strings.Count(traffic.String(), ".events.task.") >= 2*len(secrets)+2
	}, "the tasks' records on NATS")
	for _, line := range strings.Split(traffic.String(), "\n") {
		subject, _, _ := strings.Cut(line, " ")
		if strings.Contains(subject, ".events.task.") {
			require.NotContains(t, line, long, "secret on %s", subject)
			require.NotContains(t, line, "p"+broker.Redacted, "a garbled record on %s", subject)
		}
	}
}

// lastTaskRecord is the record get_latest_task returns of the caller's latest task, and the
// text of it and of get_task_result's.
func lastTaskRecord(t *testing.T, c *client.Client) (mcp.TaskRecordResult, string) {
	t.Helper()
	latest := farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true))
	var rec mcp.TaskRecordResult
	farmtest.Structured(t, latest, &rec)
	byID := farmtest.MustCall(t, c, "get_task_result", args("task_id", rec.TaskID))
	return rec, farmtest.Text(latest) + "\n" + farmtest.Text(byID)
}
