package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// hugeNumbers answers a tools/call whose arguments hold a number beyond float64 (1e309) with
// an isError result naming the argument. mcp-go decodes arguments into float64 and answers
// such a call with a protocol error (-32600 Invalid Request), which agents do not show as a
// fixable mistake of their own; the JSON itself is valid. Only tools/call bodies whose
// arguments fail to decode pay for the second look.
func (g *Gateway) hugeNumbers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := bodyOf(r)
		if r.Method != http.MethodPost || !mayOverflow(body) || !bytes.Contains(body, []byte(`"tools/call"`)) {
			next.ServeHTTP(w, r)
			return
		}
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &call) != nil || call.Method != string(mcpgo.MethodToolsCall) || len(call.ID) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		where, number, ok := outOfRange(call.Params.Arguments)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		tool := ""
		if g.knownTool(call.Params.Name) {
			tool = call.Params.Name
			g.metrics.observeCall(tool, broker.OutcomeRefused, time.Duration(0))
		}
		msg := refusalText(tool, broker.CodeBadInput, fmt.Sprintf("argument %s: %s is out of range: no number beyond ±1.8e308 can be used; pass a finite number within the tool's limits (tools/list shows them)",
			where, number))
		res := mcpgo.NewToolResultError(msg)
		w.Header().Set("Content-Type", "application/json")
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": call.ID, "result": res})
		_, _ = w.Write(append(out, '\n'))
	})
}

// mayOverflow says whether body has a number float64 might not hold: one with an exponent
// (a digit then e or E) or of 309 digits or more. Most calls have neither, and skip decoding.
func mayOverflow(body []byte) bool {
	digits := 0
	for i, c := range body {
		switch {
		case c >= '0' && c <= '9':
			if digits++; digits >= 309 {
				return true
			}
		case (c == 'e' || c == 'E') && digits > 0 && i+1 < len(body) && (body[i+1] == '+' || body[i+1] == '-' || body[i+1] >= '0' && body[i+1] <= '9'):
			return true
		default:
			digits = 0
		}
	}
	return false
}

// outOfRange finds in args a number that float64 cannot hold: its path and its text.
func outOfRange(args json.RawMessage) (where, number string, ok bool) {
	var v any
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(args, &v); err == nil || !errors.As(err, &typeErr) || !strings.HasPrefix(typeErr.Value, "number") {
		return "", "", false
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return "", "", false
	}
	return findHuge(v, "")
}

func findHuge(v any, path string) (string, string, bool) {
	switch v := v.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(v), 64); err != nil {
			return strings.TrimPrefix(path, "."), string(v), true
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, n, ok := findHuge(v[k], path+"."+k); ok {
				return p, n, true
			}
		}
	case []any:
		for i, e := range v {
			if p, n, ok := findHuge(e, fmt.Sprintf("%s[%d]", path, i)); ok {
				return p, n, true
			}
		}
	}
	return "", "", false
}
