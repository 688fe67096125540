package mcp

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// metaBody is a request of method whose _meta names version (raw JSON), with id (raw JSON,
// none for a notification) and the rest of its params.
func metaBody(id, method, version, rest string) string {
	b := `{"jsonrpc":"2.0",`
	if id != "" {
		b += `"id":` + id + `,`
	}
	if rest != "" {
		rest = "," + rest
	}
	return b + `"method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":` + version + `}` + rest + `}}`
}

// assertUnsupportedMeta checks the documented -32022 refusal of a _meta protocol version.
func assertUnsupportedMeta(t *testing.T, a rawAnswer, wantID, what string) {
	t.Helper()
	assertUnsupportedVersion(t, a, wantID, `params._meta["io.modelcontextprotocol/protocolVersion"]`, what)
}

// A protocol version in params._meta that is not a string, or not a revision the gateway
// speaks, gets the same -32022 as such a Mcp-Protocol-Version header, with the request's id:
// mcp-go took any string sorting after 2026-07-28 ("garbage") for that revision (and then
// complained of the header), and anything not a string for no version at all. This holds on
// the fast path too (a tools/call plainRequest would let by) and with the key written with
// escapes.
func TestUnknownMetaProtocolVersionsAreNamed(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	session := h.initialize(t)
	legacy := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-03-26"}
	bad := []string{`"garbage"`, `"latest"`, `"2099-01-01"`, `"2026-07-29"`, `"1999-01-01"`, `""`, `5`, `2026.0728`, `null`, `true`, `{}`, `["2025-03-26"]`}
	for _, v := range bad {
		for _, header := range []map[string]string{legacy, {"Mcp-Session-Id": session}} {
			a := h.raw(t, http.MethodPost, metaBody(`"q-7"`, "tools/list", v, ""), header)
			assertUnsupportedMeta(t, a, `"q-7"`, "tools/list "+v)
			a = h.raw(t, http.MethodPost, metaBody(`8`, "tools/call", v, `"name":"list_available_devices","arguments":{}`), header)
			assertUnsupportedMeta(t, a, `8`, "tools/call "+v)
		}
		a := h.raw(t, http.MethodPost, metaBody("", "notifications/initialized", v, ""), legacy)
		assertUnsupportedMeta(t, a, "null", "notification "+v)
	}
	modern := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
	a := h.raw(t, http.MethodPost, metaBody(`"m-1"`, "tools/list", `"garbage"`, ""), modern)
	assertUnsupportedMeta(t, a, `"m-1"`, "sessionless garbage")

	escaped := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol\/protocol\u0056ersion":"garbage"},"name":"list_available_devices","arguments":{}}}`
	assertUnsupportedMeta(t, h.raw(t, http.MethodPost, escaped, legacy), `9`, "escaped key")
	twice := `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-03-26","io.modelcontextprotocol/protocolVersion":"garbage"}}}`
	assertUnsupportedMeta(t, h.raw(t, http.MethodPost, twice, legacy), `9`, "key twice, the last garbage")
	a = h.raw(t, http.MethodPost, metaBody(`1.5`, "tools/list", `"garbage"`, ""), legacy)
	code, _ := rpcErr(t, a.body)
	assert.Equal(t, -32600, code, "an id that cannot be used is the first thing wrong: %s", a.body)
}

// A revision the gateway speaks passes as before, in the header's revision, with or without
// the header; the sessionless revision with its header serves tools/list.
func TestSupportedMetaProtocolVersionsPass(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	session := h.initialize(t)
	for _, header := range []map[string]string{
		{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-03-26"},
		{"Mcp-Session-Id": session},
	} {
		a := h.raw(t, http.MethodPost, metaBody(`3`, "ping", `"2025-03-26"`, ""), header)
		assert.Equal(t, http.StatusOK, a.status, a.body)
		assert.Contains(t, a.body, `"result":{}`, a.body)
		a = h.send(t, http.MethodPost, metaBody(`4`, "tools/call", `"2025-03-26"`, `"name":"list_available_devices","arguments":{}`), header)
		assert.Equal(t, http.StatusOK, a.status, a.body)
		assert.Contains(t, a.body, `"id":4,"result"`, a.body)
	}
	a := h.raw(t, http.MethodPost, metaBody(`5`, "ping", `"2025-03-26"`, ""), map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-03-26"})
	assert.Equal(t, http.StatusOK, a.status, a.body)

	modern := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
	a = h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":"m-2","method":"tools/list","params":{"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
		`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}}}`, modern)
	assert.Equal(t, http.StatusOK, a.status, a.body)
	assert.Contains(t, a.body, `"list_available_devices"`, a.body)
}

// The 2026-07-28 transport requires the Mcp-Protocol-Version header to match the _meta field
// and a mismatch to get 400 HeaderMismatch (-32020): the gateway holds every revision to it,
// naming both values, on the fast path too. mcp-go let a mismatch of two earlier revisions by.
func TestMetaProtocolVersionMismatchingTheHeader(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	session := h.initialize(t)
	for _, c := range []struct{ header, meta string }{
		{"2025-03-26", "2025-06-18"},
		{"2025-06-18", "2025-03-26"},
		{"2026-07-28", "2025-11-25"},
		{"2025-11-25", "2026-07-28"},
	} {
		hdr := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": c.header, "Mcp-Method": "tools/call", "Mcp-Name": "list_available_devices"}
		for _, body := range []string{
			metaBody(`"x"`, "tools/call", `"`+c.meta+`"`, `"name":"list_available_devices","arguments":{}`),
			metaBody(`"x"`, "tools/call", `"`+c.meta+`"`, `"name":"list_available_devices","arguments":{},"cursor":null`), // not plain
		} {
			a := h.raw(t, http.MethodPost, body, hdr)
			assert.Equal(t, http.StatusBadRequest, a.status, "%+v: %s", c, a.body)
			code, msg := rpcErr(t, a.body)
			assert.Equal(t, -32020, code, "%+v: %s", c, a.body)
			assert.Contains(t, msg, `Mcp-Protocol-Version header "`+c.header+`" does not match `+
				`params._meta["io.modelcontextprotocol/protocolVersion"] "`+c.meta+`"`, "%+v", c)
			assert.Equal(t, `"x"`, string(answerID(t, a.body)), "%+v: %s", c, a.body)
		}
	}
	// no header: 2026-07-28 requires one (mcp-go says so); an earlier revision stands alone
	a := h.raw(t, http.MethodPost, metaBody(`"y"`, "ping", `"2026-07-28"`, ""), map[string]string{"Mcp-Session-Id": session})
	assert.Equal(t, http.StatusBadRequest, a.status, a.body)
	code, msg := rpcErr(t, a.body)
	assert.Equal(t, -32020, code, a.body)
	assert.Contains(t, msg, "Mcp-Protocol-Version header is required", a.body)
	a = h.raw(t, http.MethodPost, metaBody(`"y"`, "ping", `"2025-06-18"`, ""), map[string]string{"Mcp-Session-Id": session})
	assert.Equal(t, http.StatusOK, a.status, a.body)
}

// Revision 2025-03-26 takes batches: each message's _meta version is judged on its own, and
// the refusal is that message's answer in the array.
func TestMetaProtocolVersionInABatch(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	session := h.initialize(t)
	batch := "[" + metaBody(`1`, "ping", `"2025-03-26"`, "") + "," + metaBody(`2`, "tools/list", `"garbage"`, "") + "," +
		metaBody(`3`, "ping", `7`, "") + "]"
	a := h.raw(t, http.MethodPost, batch, map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-03-26"})
	require.Equal(t, http.StatusOK, a.status, a.body)
	var answers []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(a.body), &answers), a.body)
	require.Len(t, answers, 3, a.body)
	assert.Contains(t, string(answers[0]), `"result":{}`)
	for i, id := range []string{"2", "3"} {
		one := rawAnswer{status: http.StatusBadRequest, header: http.Header{"Content-Type": {"application/json"}}, body: string(answers[i+1])}
		assertUnsupportedMeta(t, one, id, "batch message "+id)
	}
}

// The fast path lets by only a _meta version written plainly, once, as a revision the
// gateway speaks, and only the header's.
func TestPlainMetaVersion(t *testing.T) {
	for body, want := range map[string]bool{
		metaBody(`1`, "ping", `"2026-07-28"`, ""): true,
		metaBody(`1`, "ping", `"2025-03-26"`, ""): true,
		`{"id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion" : "2025-06-18"}}}`: true,
		metaBody(`1`, "ping", `"garbage"`, ""):                                                             false,
		metaBody(`1`, "ping", `"2026-07-28x"`, ""):                                                         false,
		metaBody(`1`, "ping", `"2026-07-2"`, ""):                                                           false,
		metaBody(`1`, "ping", `5`, ""):                                                                     false,
		metaBody(`1`, "ping", `null`, ""):                                                                  false,
		metaBody(`1`, "ping", `"\u0032026-07-28"`, ""):                                                     false,
		`{"id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol\/protocolVersion":"x"}}}`:     false,
		`{"id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/prot\u006fcolVersion":"x"}}}`: false,
		`{"id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-03-26","io.modelcontextprotocol/protocolVersion":"x"}}}`: false,
		`{"id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion"}}}`:                                                            false,
		`{"id":1,"method":"tools/call","params":{"name":"type_text","arguments":{"text":"\u00e9\n"}}}`:                                                       true,
	} {
		if got := plainMetaVersion([]byte(body), ""); got != want {
			t.Errorf("plainMetaVersion(%s) = %v, want %v", body, got, want)
		}
	}
	body := []byte(metaBody(`1`, "ping", `"2025-03-26"`, ""))
	for header, want := range map[string]bool{"": true, "2025-03-26": true, "2025-06-18": false, "2025-03-2": false} {
		if got := plainMetaVersion(body, header); got != want {
			t.Errorf("plainMetaVersion(%s) with header %q = %v, want %v", body, header, got, want)
		}
	}
}

// FuzzPlainMetaVersion: the fast path never lets by a request whose _meta version, decoded
// as mcp-go decodes it, metaVersionProblem would refuse.
func FuzzPlainMetaVersion(f *testing.F) {
	for _, s := range []string{
		metaBody(`1`, "ping", `"2025-03-26"`, ""),
		metaBody(`1`, "tools/call", `"2026-07-28"`, `"name":"x","arguments":{"io.modelcontextprotocol/protocolVersion":"garbage"}`),
		`{"id":1,"method":"ping","params":{"_META":{"io.modelcontextprotocol/protocolVersion":"2025-03-26","io.modelcontextprotocol/protocolVersion":"x"}}}`,
		`{"id":1,"method":"ping","Params":{"_meta":{"io.modelcontextprotocol\/protocolVersion":7}}}`,
		`{"id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-03-26\u0000"}}}`,
	} {
		f.Add([]byte(s), "2025-03-26")
		f.Add([]byte(s), "")
	}
	f.Fuzz(func(t *testing.T, body []byte, header string) {
		if !plainRequest(body) || !plainMetaVersion(body, header) {
			return
		}
		var msg struct {
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &msg) != nil || len(msg.Params) == 0 {
			return
		}
		if ref, bad := metaVersionProblem(msg.Params, header); bad {
			t.Errorf("the fast path let %q (header %q) by, which is refused: %s", body, header, ref.msg)
		}
	})
}
