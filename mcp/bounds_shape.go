package mcp

import (
	"fmt"
	"net/http"
)

// Bounds of a request body's shape, checked in one pass before anything decodes it: mcp-go
// decodes a tools/call's arguments into maps and slices of any, which for a 4 MB array of
// 1.3M ones cost about 0.75 s of CPU a request, and answers JSON nested past encoding/json's
// 10000 levels with "not valid json". No MCP message comes near either bound.
const (
	maxBodyDepth     = 128
	maxArrayElements = 10_000
)

// shapeProblem says what in body is beyond the bounds of its shape, or "". It reads JSON
// loosely (strings and brackets only): a body that is not JSON is for the decoder to refuse.
func shapeProblem(body []byte) string {
	type level struct {
		array    bool
		elements int
	}
	var stack []level
	inString, escaped := false, false
	for _, c := range body {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			if len(stack) >= maxBodyDepth {
				return fmt.Sprintf("the request body nests arrays and objects more than %d levels deep; no MCP message needs that many", maxBodyDepth)
			}
			stack = append(stack, level{array: c == '['})
		case ']', '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 && stack[n-1].array {
				if stack[n-1].elements++; stack[n-1].elements >= maxArrayElements {
					return fmt.Sprintf("an array in the request body has more than %d elements; no tool takes that many: send less", maxArrayElements)
				}
			}
		}
	}
	return ""
}

// refuseShape answers a body shapeProblem refused: 400 with a JSON-RPC error.
func (g *Gateway) refuseShape(w http.ResponseWriter, r *http.Request, problem string) {
	g.refusedRequest(r, reasonBody, "refused request: body beyond its shape's bounds", "problem", problem)
	writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, problem)
}
