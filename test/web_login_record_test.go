package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/tools"
)

// The login endpoint's answer is often the session itself: web_login_none_ui's caller gets it
// whole, but its task record, which another principal allowed on the device reads with
// get_task_result and the operator role on the event stream, keeps only its status, size and
// top-level keys.
func TestWebLoginAnswerStaysOutOfRecords(t *testing.T) {
	const token = "tok-SESSION-4b7e9c2d11"
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/login", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"ok":true,"access_token":%q,"user":{"id":7}}`, token)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f := webFarm(t, "web-token")
	traffic := sniff(t, f)
	c := f.Client("shopper")

	res := farmtest.MustCall(t, c, "web_login_none_ui", args("serial", "web-token", "packageName", srv.URL+"/api/login",
		"phoneNumber", "13800000000", "password", "s3cret-pass", "anti_risk", true))
	var got tools.LoginResult
	farmtest.Structured(t, res, &got)
	assert.Equal(t, map[string]any{"ok": true, "access_token": token, "user": map[string]any{"id": float64(7)}}, got.LoginResult.Body,
		"the caller's answer keeps the endpoint's answer")

	latest := farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true))
	var own mcp.TaskRecordResult
	farmtest.Structured(t, latest, &own)
	require.Equal(t, "web_login_none_ui", own.Tool)
	other := farmtest.MustCall(t, f.Client("reader"), "get_task_result", args("task_id", own.TaskID))
	var rec mcp.TaskRecordResult
	farmtest.Structured(t, other, &rec)
	for _, r := range []string{farmtest.Text(latest), farmtest.Text(other)} {
		assert.NotContains(t, r, token, "a record keeps the session token")
	}
	data, err := json.Marshal(rec.Data)
	require.NoError(t, err)
	var kept struct {
		Message     string              `json:"message"`
		LoginResult tools.LoginRecorded `json:"loginResult"`
		AntiRisk    string              `json:"antiRisk"`
	}
	require.NoError(t, json.Unmarshal(data, &kept), "%s", data)
	body, _ := json.Marshal(got.LoginResult.Body)
	assert.Equal(t, tools.LoginRecorded{OK: true, Status: 200, Body: broker.Redacted, BodyBytes: len(body),
		BodyKeys: []string{"access_token", "ok", "user"}}, kept.LoginResult, "%s", data)
	assert.Contains(t, kept.Message, "logged in at")
	assert.Equal(t, "not applicable on web", kept.AntiRisk, "the record says what the behaviour parameters did")

	tokenOnlyInTheAnswer(t, f, traffic, token)
}

// A login endpoint's refusal may hold a token too (a half-open session, a CSRF token): the
// caller's error quotes its answer, but the task record keeps only its status and size, as a
// success's record does. It quoted up to 300 characters of it into the record.
func TestWebLoginRefusalStaysOutOfRecords(t *testing.T) {
	const token = "tok-HALFOPEN-8c1d5e7f22"
	answer := fmt.Sprintf(`{"error":"captcha required","session":%q}`, token)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/login", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, answer)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f := webFarm(t, "web-refused")
	traffic := sniff(t, f)
	c := f.Client("shopper")

	res := farmtest.Call(t, c, "web_login_none_ui", args("serial", "web-refused", "packageName", srv.URL+"/api/login",
		"phoneNumber", "13800000000", "password", "s3cret-pass"))
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "the login endpoint answered HTTP 401: "+answer, "the caller's error quotes the answer")

	latest := farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true))
	var own mcp.TaskRecordResult
	farmtest.Structured(t, latest, &own)
	require.Equal(t, "web_login_none_ui", own.Tool)
	other := farmtest.MustCall(t, f.Client("reader"), "get_task_result", args("task_id", own.TaskID))
	var rec mcp.TaskRecordResult
	farmtest.Structured(t, other, &rec)
	require.NotNil(t, rec.Error, farmtest.Text(other))
	assert.Equal(t, "device web-refused: "+fmt.Sprintf("the login endpoint answered HTTP 401, %d bytes (only its caller reads them)", len(answer)),
		*rec.Error, "the record's error: the status and the answer's size")
	for _, r := range []string{farmtest.Text(latest), farmtest.Text(other)} {
		assert.NotContains(t, r, token, "a record keeps the token")
		assert.NotContains(t, r, "captcha required", "a record keeps the answer")
	}

	tokenOnlyInTheAnswer(t, f, traffic, token)
}

// tokenOnlyInTheAnswer fails if token, once the task's record is on NATS, is in any message
// but the caller's answer (_INBOX) or anywhere in the farm's JetStream files.
func tokenOnlyInTheAnswer(t *testing.T, f *farmtest.Farm, traffic *logtest.Buffer, token string) {
	t.Helper()
	farmtest.Eventually(t, 10*time.Second, func() bool {
		return strings.Count(traffic.String(), ".events.task.") >= 1
	}, "the task record on NATS")
	for _, line := range strings.Split(traffic.String(), "\n") {
		subject, _, _ := strings.Cut(line, " ")
		if strings.HasPrefix(subject, "_INBOX") {
			continue // the caller's answer
		}
		require.NotContains(t, line, token, "the token on %s", subject)
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
		require.False(t, bytes.Contains(b, []byte(token)), "the token in the JetStream store: %s", path)
		return nil
	}))
}
