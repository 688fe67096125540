package mcp

import "testing"

// The common request skips messageShape's decoding; anything it has a word for does not.
func TestPlainRequest(t *testing.T) {
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"tap_xy","arguments":{"x":0.5,"y":0.5}}}`: true,
		`{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params" : { "name" : "tap_xy", "arguments": {}}}`:   true,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`:                                                          true,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`:                                                  true,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":["tap_xy"]}`:                                      false,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"tap_xy"}`:                                        false,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5,"arguments":{}}}`:                       false,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1e999}}}`:    false,
		`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"zzz"}}`:                                false,
		// protocol 2026-07-28 clients send _meta with every request
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}},"arguments":{},"name":"get_screen_size"}}`: true,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":"p1"},"name":"x"}}`:                                                                         false,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"n":1e999},"name":"x"}}`:                                                                                    false,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":"m","name":"x"}}`:                                                                                            false,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"_meta":{}},"_meta":[],"name":"x"}}`:                                                                    false,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`:                                                                                                                            false,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no"}}`:                                                                                                                 false,
		`{"jsonrpc":"2.0","id":7,"result":{"method":"looks like a request"}}`:                                                                                                         false,
	} {
		if got := plainRequest([]byte(body)); got != want {
			t.Errorf("plainRequest(%s) = %v, want %v", body, got, want)
		}
	}
}
