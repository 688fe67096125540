package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// metaVersionField names, for errors, the _meta field in which a client names its protocol
// revision with each request (2026-07-28 on; mcp-go reads it in any request).
const metaVersionField = `params._meta["` + mcpgo.MetaKeyProtocolVersion + `"]`

// metaVersionKey is that field's key as it appears, written plainly, in a body.
var metaVersionKey = []byte(`"` + mcpgo.MetaKeyProtocolVersion + `"`)

// versionRefusal is what is wrong with a request's _meta protocol version: a JSON-RPC code,
// its message, and for -32022 the value as requested (data.requested).
type versionRefusal struct {
	code      int
	msg       string
	requested string
}

// metaVersionProblem judges the protocol version a request names in params._meta, read as
// mcp-go reads it (params and _meta matched as encoding/json matches field names, the key
// exactly, the last of two winning). mcp-go compares versions as strings, so it took any
// value sorting after 2026-07-28 ("garbage", "2099-01-01") for that revision, and anything
// that is not a string for no version at all. Only a revision the gateway speaks passes, and
// only the one the Mcp-Protocol-Version header names when there is one: the 2026-07-28
// transport requires the two to match, and refuses a mismatch with HeaderMismatch (-32020).
// A header the gateway does not speak never gets here (protocolVersion).
func metaVersionProblem(params json.RawMessage, header string) (versionRefusal, bool) {
	var p struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Meta) == 0 {
		return versionRefusal{}, false // no params object: paramsProblem's to say
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p.Meta, &meta) != nil {
		return versionRefusal{}, false // no _meta object: metaProblem's to say
	}
	raw, ok := meta[mcpgo.MetaKeyProtocolVersion]
	if !ok {
		return versionRefusal{}, false
	}
	speaks := strings.Join(mcpgo.ValidProtocolVersions, ", ")
	var v string
	if json.Unmarshal(raw, &v) != nil || raw[0] != '"' {
		return versionRefusal{code: mcpgo.UNSUPPORTED_PROTOCOL_VERSION, requested: shorten(string(raw), 40), msg: fmt.Sprintf(
			"%s must be a string naming a protocol revision, not %s: this gateway speaks %s; send the one the Mcp-Protocol-Version header names",
			metaVersionField, jsonKind(raw), speaks)}, true
	}
	if !slices.Contains(mcpgo.ValidProtocolVersions, v) {
		return versionRefusal{code: mcpgo.UNSUPPORTED_PROTOCOL_VERSION, requested: shorten(v, 40), msg: fmt.Sprintf(
			"unsupported %s %q: this gateway speaks %s; send the one the Mcp-Protocol-Version header names",
			metaVersionField, shorten(v, 40), speaks)}, true
	}
	if header != "" && header != v {
		return versionRefusal{code: mcpgo.HEADER_MISMATCH, msg: fmt.Sprintf(
			"Mcp-Protocol-Version header %q does not match %s %q: a request names one protocol revision, the same in both",
			shorten(header, 40), metaVersionField, v)}, true
	}
	return versionRefusal{}, false
}

// refuseMetaVersion answers 400 with the refusal of the _meta protocol version in params, if
// there is one, and reports whether it did. id is the request's (nil for a notification).
func refuseMetaVersion(w http.ResponseWriter, r *http.Request, id, params json.RawMessage) bool {
	ref, bad := metaVersionProblem(params, r.Header.Get(mcpgo.HeaderProtocolVersion))
	if !bad {
		return false
	}
	if ref.code == mcpgo.UNSUPPORTED_PROTOCOL_VERSION {
		writeUnsupportedVersion(w, id, ref.msg, ref.requested)
		return true
	}
	writeRPCError(w, http.StatusBadRequest, id, ref.code, ref.msg)
	return true
}

// plainMetaVersion says, from body's bytes alone, whether it names no protocol version in a
// _meta or names, once and written plainly, one the gateway speaks and header names (no
// header names none), so that messageShape may let it by undecoded. A second key, another
// value, or an escape that could spell the key (\/, \u0070 for "p") is for
// metaVersionProblem to judge on the decoded request.
func plainMetaVersion(body []byte, header string) bool {
	if bytes.Contains(body, []byte(`\/`)) || escapes(body, mcpgo.MetaKeyProtocolVersion) {
		return false
	}
	i := bytes.Index(body, metaVersionKey)
	if i < 0 {
		return true
	}
	if bytes.Contains(body[i+len(metaVersionKey):], metaVersionKey) {
		return false
	}
	v, ok := valueAfter(body[i:], metaVersionKey)
	if !ok {
		return false
	}
	for _, s := range mcpgo.ValidProtocolVersions {
		if len(v) > len(s)+1 && v[0] == '"' && string(v[1:len(s)+1]) == s && v[len(s)+1] == '"' {
			return header == "" || header == s
		}
	}
	return false
}
