package test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/internal/farmtest"
)

// Every long call reports as it goes: notifications/progress, increasing, when the client
// gives a progress token; logging messages when it does not.
func TestLongCallsReportProgress(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	phone := f.Phone(serial)

	// An app server that sends the file in four pieces over about half a second.
	const piece = 256 << 10
	apps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(4*piece))
		body := make([]byte, piece)
		copy(body, "PK\x03\x04")
		for range 4 {
			_, _ = w.Write(body)
			w.(http.Flusher).Flush()
			time.Sleep(150 * time.Millisecond)
			copy(body, make([]byte, 4))
		}
	}))
	defer apps.Close()

	tap := func(x float64) map[string]any {
		return map[string]any{"tool_name": "tap", "arg": []any{x, 0.5, x + 0.05, 0.55}}
	}
	calls := []struct {
		tool  string
		args  map[string]any
		setup func()
	}{
		{"sleep", args("serial", serial, "seconds", 1.2), func() {}},
		{"app_install", args("serial", serial, "appUrl", apps.URL+"/com.example.progress.apk"), func() {}},
		{"sequence", args("serial", serial, "step1", tap(0.1), "step2", tap(0.4), "step3", tap(0.7)),
			func() { phone.SetDelay(150 * time.Millisecond) }},
	}
	for _, call := range calls {
		for _, withToken := range []bool{true, false} {
			name := call.tool + map[bool]string{true: "/progress token", false: "/no token"}[withToken]
			t.Run(name, func(t *testing.T) {
				c := f.Client("progress")
				var mu sync.Mutex
				var progress []float64
				var messages int
				c.OnNotification(func(n mcpgo.JSONRPCNotification) {
					mu.Lock()
					defer mu.Unlock()
					switch n.Method {
					case string(mcpgo.MethodNotificationProgress):
						if p, ok := n.Params.AdditionalFields["progress"].(float64); ok {
							progress = append(progress, p)
						}
					case "notifications/message":
						messages++
					}
				})
				if !withToken {
					// Logging messages go to clients that ask for them (logging/setLevel).
					level := mcpgo.SetLevelRequest{}
					level.Params.Level = mcpgo.LoggingLevelInfo
					if err := c.SetLevel(t.Context(), level); err != nil {
						t.Fatal(err)
					}
				}
				call.setup()
				defer phone.SetDelay(0)
				req := mcpgo.CallToolRequest{}
				req.Params.Name = call.tool
				req.Params.Arguments = call.args
				if withToken {
					req.Params.Meta = &mcpgo.Meta{ProgressToken: name}
				}
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				defer cancel()
				res, err := c.CallTool(ctx, req)
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %s", call.tool, err, farmtest.Text(res))
				}
				mu.Lock()
				defer mu.Unlock()
				if !withToken {
					if messages < 1 || len(progress) != 0 {
						t.Fatalf("without a token: %d logging messages and %d progress notifications; want messages only", messages, len(progress))
					}
					return
				}
				if len(progress) < 2 {
					t.Fatalf("got %d progress notifications; want at least 2", len(progress))
				}
				for i := 1; i < len(progress); i++ {
					if progress[i] <= progress[i-1] {
						t.Fatalf("progress does not increase: %v", progress)
					}
				}
			})
		}
	}
}
