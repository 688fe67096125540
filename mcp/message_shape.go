package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// codeInvalidParams is JSON-RPC's Invalid params, which MCP gives a bad cursor too.
const codeInvalidParams = -32602

// messageShape answers, in the words of the protocol, messages mcp-go would answer in Go's or
// get wrong: a request whose id is not a string or an integer it sends back exactly (it
// reads numbers through float64, took a null id for a notification and echoed any other),
// whose params are not an object ("cannot unmarshal array into Go value of type
// mcp.params"), whose _meta holds a progress token it cannot read ("Go struct field
// .progressToken of type float64") or whose list cursor is not base64 ("illegal base64 data
// at input byte 0"), a request or notification whose _meta names a protocol version the
// gateway does not speak or the header does not (metaVersionProblem), and a JSON-RPC response
// from the client, which mcp-go takes for an answer to a sampling request and logs at ERROR,
// and a tools/call of a tool the gateway does not serve (unknown_tool.go). Anything else goes
// on untouched; a request that passes is decoded by mcp-go as before.
func (g *Gateway) messageShape(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || plainRequest(bodyOf(r)) && plainMetaVersion(bodyOf(r), r.Header.Get(mcpgo.HeaderProtocolVersion)) &&
			!g.mayCallUnknownTool(bodyOf(r)) {
			next.ServeHTTP(w, r)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(bodyOf(r), &msg) != nil {
			next.ServeHTTP(w, r) // not one JSON object: mcp-go's parse error
			return
		}
		if msg.Method == nil {
			if isResponse(msg.ID, msg.Result, msg.Error) {
				writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, notExpected)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if len(msg.ID) == 0 { // a notification: no answer to give, but a refusal of its revision
			if !refuseMetaVersion(w, r, nil, msg.Params) {
				next.ServeHTTP(w, r)
			}
			return
		}
		if problem := idProblem(msg.ID); problem != "" {
			writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, problem) // an id that cannot be used is answered as null
			return
		}
		if refuseMetaVersion(w, r, msg.ID, msg.Params) {
			return
		}
		problem := paramsProblem(*msg.Method, msg.Params)
		if problem == "" && g.mayCallUnknownTool(bodyOf(r)) {
			problem = g.unknownToolProblem(r, *msg.Method, msg.Params) // unknown_tool.go
		}
		if problem != "" {
			status := http.StatusOK // what mcp-go answers an invalid request with before 2026-07-28
			if mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) {
				status = http.StatusBadRequest
			}
			writeRPCError(w, status, msg.ID, codeInvalidParams, problem)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// plainRequest says, from its bytes alone, whether body is a request with nothing here to look
// at: a method, a string or small integer id (or none), params an object with a string name,
// no cursor, and no _meta or one that is an object with no progress token and no number
// beyond float64 (its protocol version is plainMetaVersion's to judge). Every call is one (a
// client of protocol 2026-07-28 sends _meta in each); decoding each once more cost about 7 µs
// of CPU a call. A body it misjudges (a "name" inside the arguments before the tool's) only
// gets mcp-go's words for its mistake.
func plainRequest(body []byte) bool {
	if !bytes.Contains(body, []byte(`"method"`)) || bytes.Contains(body, []byte(`"cursor"`)) || !plainID(body) {
		return false
	}
	if bytes.Contains(body, []byte(`"_meta"`)) && (!metaObjects(body) ||
		bytes.Contains(body, []byte(`"progressToken"`)) || mayOverflow(body)) {
		return false
	}
	params, ok := valueAfter(body, `"params"`)
	if !ok {
		return !bytes.Contains(body, []byte(`"result"`)) && !bytes.Contains(body, []byte(`"error"`))
	}
	if params[0] != '{' {
		return false
	}
	name, ok := valueAfter(params, `"name"`)
	return !ok || name[0] == '"'
}

// plainID says whether body holds no "id" key or one only, a string or an integer of at most
// 15 digits (exact through float64). Any other, an "id" twice (one may be an argument's), or
// a key encoding/json could read as id ("ID", an escaped letter) is for idProblem to judge on
// the decoded message.
func plainID(body []byte) bool {
	at, ok := onlyIDKey(body)
	if !ok {
		return false
	}
	if at < 0 {
		return true
	}
	v, ok := valueAfter(body[at:], body[at:at+4])
	if !ok {
		return false
	}
	if v[0] == '"' {
		return true
	}
	digits := bytes.TrimPrefix(v, []byte("-"))
	n := 0
	for n < len(digits) && digits[n] >= '0' && digits[n] <= '9' {
		n++
	}
	if n == 0 || n > 15 || n == len(digits) {
		return false
	}
	c := digits[n]
	return c == ',' || c == '}' || c == ' ' || c == '\t' || c == '\r' || c == '\n'
}

// onlyIDKey finds the one "id" in body, in any case as encoding/json matches keys: its
// index, or -1 for none. It fails for two, or for a \u escape of i or d (a key it cannot see).
func onlyIDKey(body []byte) (int, bool) {
	if escapes(body, "IiDd") {
		return 0, false
	}
	at := -1
	for i := 0; ; i++ {
		j := bytes.IndexByte(body[i:], '"')
		if j < 0 || i+j+4 > len(body) {
			return at, true
		}
		i += j
		if body[i+1]|0x20 == 'i' && body[i+2]|0x20 == 'd' && body[i+3] == '"' {
			if at >= 0 {
				return 0, false
			}
			at = i
		}
	}
}

// escapes says whether body holds one of chars written as a \u escape, a key letter
// encoding/json reads that a search of the bytes would not see.
func escapes(body []byte, chars string) bool {
	for rest := body; ; {
		i := bytes.Index(rest, []byte(`\u00`))
		if i < 0 || i+6 > len(rest) {
			return false
		}
		var c [1]byte
		if _, err := hex.Decode(c[:], rest[i+4:i+6]); err == nil && strings.IndexByte(chars, c[0]) >= 0 {
			return true
		}
		rest = rest[i+4:]
	}
}

// metaObjects says whether every "_meta" key in body has an object for its value.
func metaObjects(body []byte) bool {
	for rest := body; ; {
		v, ok := valueAfter(rest, `"_meta"`)
		if !ok {
			return !bytes.Contains(rest, []byte(`"_meta"`)) // a key with nothing after it
		}
		if v[0] != '{' {
			return false
		}
		rest = v
	}
}

// valueAfter returns what follows the first key in body past its colon, if anything does.
func valueAfter[K string | []byte](body []byte, key K) ([]byte, bool) {
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return nil, false
	}
	rest := bytes.TrimLeft(body[i+len(key):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return nil, false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	return rest, len(rest) > 0
}

// isResponse says whether a message without a method is a response mcp-go would take for a
// sampling answer: an id and a result or an error, other than the empty result that answers
// the pings of the GET stream's heartbeat (mcp-go accepts that with 202).
func isResponse(id, result, errObj json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	if errObj != nil && string(errObj) != "null" {
		return true
	}
	var empty map[string]json.RawMessage
	if result == nil || string(result) == "null" || json.Unmarshal(result, &empty) == nil && len(empty) == 0 {
		return false
	}
	return true
}

// maxExactInteger is the largest integer mcp-go keeps exactly (2^53-1): it reads every
// number through float64, so 9007199254740993 comes back as 9007199254740992.
const maxExactInteger = 1<<53 - 1

// idProblem says what is wrong with a request's id in terms of the protocol, or "" for a
// string or an integer mcp-go answers with exactly as it came. MCP: a request's id is a
// string or an integer, never null.
func idProblem(id json.RawMessage) string {
	const want = "id must be a string or an integer, not "
	switch c := id[0]; {
	case c == '"':
		return ""
	case c == 'n':
		return want + "null: a request always has an id (a message without one is a notification, which gets no answer): " +
			`send one, as "id": 1`
	case c != '-' && (c < '0' || c > '9'):
		return want + jsonKind(id) + `: send one, as "id": 1 or "id": "a1"`
	case !integerLiteral(id):
		return want + shorten(string(id), 40) + ": write it without a fraction or an exponent, or send a string id"
	case !exactInteger(id):
		return fmt.Sprintf("id %s is an integer beyond ±2^53 (%d), which this gateway cannot keep exactly, so its answer "+
			"would not carry the same id: send a string id instead (\"%s\")", shorten(string(id), 40), maxExactInteger, shorten(string(id), 40))
	}
	return ""
}

// integerLiteral says whether a JSON number is written as an integer: digits, maybe a sign.
func integerLiteral(n json.RawMessage) bool {
	digits := bytes.TrimPrefix(n, []byte("-"))
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(digits) > 0
}

// exactInteger says whether an integer literal is within ±2^53-1, where float64 holds every
// integer exactly.
func exactInteger(n json.RawMessage) bool {
	i, err := strconv.ParseInt(string(n), 10, 64)
	return err == nil && -maxExactInteger <= i && i <= maxExactInteger
}

// paramsProblem says what is wrong with a request's params in terms of the protocol, or ""
// when mcp-go can read them.
func paramsProblem(method string, params json.RawMessage) string {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || string(p) == "null" {
		return ""
	}
	if p[0] != '{' {
		if method == string(mcpgo.MethodToolsCall) {
			return fmt.Sprintf("params must be an object with name and arguments, not %s: "+
				`{"name": "list_available_devices", "arguments": {}}`, jsonKind(p))
		}
		return fmt.Sprintf("params of %s must be a JSON object, not %s", shorten(method, 64), jsonKind(p))
	}
	var fields struct {
		Meta   json.RawMessage `json:"_meta"`
		Cursor json.RawMessage `json:"cursor"`
		Name   json.RawMessage `json:"name"`
	}
	if json.Unmarshal(p, &fields) != nil {
		return ""
	}
	if problem := metaProblem(fields.Meta); problem != "" {
		return problem
	}
	if method == string(mcpgo.MethodToolsCall) && fields.Name != nil && fields.Name[0] != '"' {
		return fmt.Sprintf("params.name must be a string, the name of a tool (tools/list gives them), not %s", jsonKind(fields.Name))
	}
	if strings.HasSuffix(method, "/list") && fields.Cursor != nil && string(fields.Cursor) != "null" {
		var c string
		if json.Unmarshal(fields.Cursor, &c) != nil {
			return "cursor must be a string: " + cursorHint
		}
		if _, err := base64.StdEncoding.DecodeString(c); err != nil {
			return "cursor is not one this gateway gave: " + cursorHint
		}
		if c != "" && method == onePageList {
			return "cursor is not one this gateway gave: " + onePageList + " answers with every tool in one page and never gives a nextCursor, " +
				"so leave cursor out (mcp-go would have read it as a tool name to start after, and given a wrong page)"
		}
	}
	return ""
}

// onePageList is the list method of the protocol this gateway serves (the others are
// mcp-go's "not supported"): it is never paged (no mcpserver.WithPaginationLimit), so no
// cursor is one it gave. An empty cursor is taken for none, as mcp-go does.
const onePageList = string(mcpgo.MethodToolsList)

// notExpected answers a client's JSON-RPC response.
const notExpected = "this server sends clients no requests (but the GET stream's ping, answered with an empty result), " +
	"so a JSON-RPC response (a message with result or error and no method) is not expected: send requests and notifications only"

const cursorHint = "pass the nextCursor of the previous page, or none for the first"

// metaProblem says what mcp-go cannot read in a request's _meta: anything but an object, a
// progress token that is neither a string nor a number it can hold, or another number beyond
// float64.
func metaProblem(meta json.RawMessage) string {
	if len(meta) == 0 || string(meta) == "null" {
		return ""
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(meta, &fields) != nil {
		return "params._meta must be a JSON object, not " + jsonKind(meta)
	}
	if t, ok := fields["progressToken"]; ok && string(t) != "null" && t[0] != '"' {
		if _, err := strconv.ParseFloat(string(t), 64); err != nil {
			return fmt.Sprintf("params._meta.progressToken must be a string or an integer, not %s", tokenText(t))
		}
		if integerLiteral(t) && !exactInteger(t) {
			return fmt.Sprintf("params._meta.progressToken %s is an integer beyond ±2^53 (%d), which this gateway cannot keep exactly, "+
				"so its progress notifications would not carry the same token: send a string token instead (\"%s\")",
				shorten(string(t), 40), maxExactInteger, shorten(string(t), 40))
		}
	}
	if where, number, ok := outOfRange(meta); ok {
		return fmt.Sprintf("params._meta.%s: %s is out of range: no number beyond ±1.8e308 can be read; send a smaller one, or a string", where, number)
	}
	return ""
}

// tokenText shows a bad progress token: a number as written, anything else by its kind.
func tokenText(t json.RawMessage) string {
	if c := t[0]; c == '-' || c >= '0' && c <= '9' {
		return shorten(string(t), 40) + " (beyond what a number can hold here)"
	}
	return jsonKind(t)
}

// jsonKind names the JSON type of a value, as "an array".
func jsonKind(v json.RawMessage) string {
	switch c := v[0]; {
	case c == '[':
		return "an array"
	case c == '{':
		return "an object"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	}
	return "a number"
}
