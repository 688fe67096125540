package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request's id comes back as it was sent, or the request is refused before it runs: mcp-go
// reads numbers through float64, so integers beyond ±2^53 came back changed, and an id that
// is null, fractional, a boolean, an array or an object was taken as a notification or echoed.
func TestRequestIDsComeBackExactlyOrAreRefused(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	withSession := map[string]string{"Mcp-Session-Id": h.initialize(t)}

	t.Run("kept", func(t *testing.T) {
		for _, id := range []string{`9007199254740991`, `-9007199254740991`, `0`, `7`,
			`"9007199254740993"`, `"` + strings.Repeat("x", 300) + `"`, `""`} {
			a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, withSession)
			require.Equal(t, http.StatusOK, a.status, "id %s: %s", id, a.body)
			assert.Equal(t, id, string(answerID(t, a.body)), "id %s", id)
		}
	})
	t.Run("beyond 2^53", func(t *testing.T) {
		for _, id := range []string{`9007199254740992`, `9007199254740993`, `-9007199254740993`, `9223372036854775808`, `123456789012345678901234567890`} {
			a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, withSession)
			wantIDRefused(t, a, id, "beyond ±2^53 (9007199254740991)", "send a string id instead")
		}
	})
	t.Run("not a string or an integer", func(t *testing.T) {
		for id, kind := range map[string]string{`null`: "not null", `1.5`: "not 1.5", `1e2`: "not 1e2", `true`: "not a boolean",
			`[1]`: "not an array", `{"a":1}`: "not an object"} {
			for _, method := range []string{"tools/list", "ping"} {
				a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`"}`, withSession)
				wantIDRefused(t, a, id, "id must be a string or an integer, "+kind)
			}
		}
	})
	t.Run("batch", func(t *testing.T) {
		a := h.raw(t, http.MethodPost, `[{"jsonrpc":"2.0","id":null,"method":"tools/list"},{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"},`+
			`{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, withSession)
		require.Equal(t, http.StatusOK, a.status, a.body)
		var answers []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(a.body), &answers), a.body)
		require.Len(t, answers, 3, a.body)
		for i, want := range []string{"id must be a string or an integer, not null", "beyond ±2^53"} {
			code, msg := rpcErr(t, string(answers[i]))
			assert.Equal(t, codeInvalidRequest, code, "member %d: %s", i, answers[i])
			assert.Contains(t, msg, want, "member %d", i)
			assert.Equal(t, "null", string(answerID(t, string(answers[i]))), "member %d", i)
		}
		assert.Equal(t, "9007199254740991", string(answerID(t, string(answers[2]))))
	})
}

// A progress token is sent back in notifications as the caller gave it, or refused before
// the call runs: mcp-go sent 9007199254740993 back as 9007199254740992.
func TestProgressTokensComeBackExactlyOrAreRefused(t *testing.T) {
	farm := newFakeFarm(t)
	farm.RunFn = func(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error) {
		progress(broker.Progress{TaskID: req.ID, Progress: 1, Total: 2, Message: "half"})
		return miniNode(t, ctx, req, progress), nil
	}
	h := startHTTPGateway(t, farm, Options{})
	withSession := map[string]string{"Mcp-Session-Id": h.initialize(t)}
	callWith := func(token string) rawAnswer {
		return h.send(t, http.MethodPost, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"home",`+
			`"arguments":{"serial":"emulator-5554"},"_meta":{"progressToken":`+token+`}}}`, withSession)
	}

	for _, token := range []string{`9007199254740991`, `-9007199254740991`, `"9007199254740993"`} {
		a := callWith(token)
		require.Equal(t, http.StatusOK, a.status, "token %s: %s", token, a.body)
		assert.Contains(t, a.body, `"progressToken":`+token, "token %s", token)
	}
	runs := len(farm.Runs())
	for _, token := range []string{`9007199254740993`, `-9007199254740992`, `9223372036854775808`} {
		a := callWith(token)
		assert.Equal(t, http.StatusOK, a.status, "token %s: %s", token, a.body)
		code, msg := rpcErr(t, a.body)
		assert.Equal(t, codeInvalidParams, code, "token %s: %s", token, a.body)
		assert.Contains(t, msg, "params._meta.progressToken "+token, "token %s", token)
		assert.Contains(t, msg, "beyond ±2^53 (9007199254740991)", "token %s", token)
		assert.Contains(t, msg, "send a string token instead", "token %s", token)
		assert.Equal(t, "8", string(answerID(t, a.body)), "token %s", token)
	}
	assert.Equal(t, runs, len(farm.Runs()), "a refused token's call ran")
}

// wantIDRefused checks an answer is the refusal of a request's id: 400, Invalid Request, id
// null (the id could not be used), in words that hold want.
func wantIDRefused(t *testing.T, a rawAnswer, id string, want ...string) {
	t.Helper()
	assert.Equal(t, http.StatusBadRequest, a.status, "id %s: %s", id, a.body)
	if a.status == http.StatusAccepted || a.body == "" {
		return
	}
	code, msg := rpcErr(t, a.body)
	assert.Equal(t, codeInvalidRequest, code, "id %s: %s", id, a.body)
	for _, w := range want {
		assert.Contains(t, msg, w, "id %s", id)
	}
	assert.Equal(t, "null", string(answerID(t, a.body)), "id %s", id)
}

// answerID returns the id of a JSON-RPC answer as it was written.
func answerID(t *testing.T, body string) json.RawMessage {
	t.Helper()
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(body)), &m), body)
	return m.ID
}

// The fast path takes only ids it can vouch for: a string, or an integer short enough to be
// exact; anything else (or an "id" twice) is decoded and judged by idProblem.
func TestPlainIDs(t *testing.T) {
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`:                                          true,
		`{"jsonrpc":"2.0","id" : -123456789012345,"method":"ping"}`:                         true,
		`{"jsonrpc":"2.0","id":"9007199254740993","method":"ping"}`:                         true,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`:                            true,
		`{"jsonrpc":"2.0","method":"ping","id":7}`:                                          true,
		`{"jsonrpc":"2.0","id":1234567890123456,"method":"ping"}`:                           false,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`:                                       false,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`:                                        false,
		`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`:                                        false,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`:                                       false,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`:                                        false,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":1}},"id":null}`: false,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"x":"id"}},"id":7}`:  false,
	} {
		if got := plainID([]byte(body)); got != want {
			t.Errorf("plainID(%s) = %v, want %v", body, got, want)
		}
	}
}

// Whatever plainID lets through without decoding, idProblem would have let through too.
func FuzzPlainIDAgreesWithIDProblem(f *testing.F) {
	for _, id := range []string{`7`, `-0`, `"a"`, `null`, `1.5`, `1e2`, `9007199254740993`, `123456789012345`, `[1]`, `{"id":1}`, `null,"ID":null`, `1,"\u0069d":null`} {
		f.Add(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !plainID([]byte(body)) {
			return
		}
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(body), &msg) != nil || len(msg.ID) == 0 {
			return
		}
		if problem := idProblem(msg.ID); problem != "" {
			t.Errorf("plainID passed %s, whose id %s idProblem refuses: %s", body, msg.ID, problem)
		}
	})
}
