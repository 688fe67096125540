package test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/internal/farmtest"
)

// inspectorVersion is the MCP Inspector the test drives; test/inspector/package-lock.json pins
// it, with its whole tree, and scripts/setup.sh installs it into .tools/inspector.
const inspectorVersion = "0.15.0"

// The official MCP Inspector CLI, a client we did not write (the TypeScript SDK), lists the
// tools and calls them over streamable HTTP and through the stdio bridge; the test reads the
// JSON it prints.
func TestInspectorCLI(t *testing.T) {
	inspector := inspectorCLI(t)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2})
	url := f.Gateway().MCPURL
	want := toolNames(t, f)
	for _, transport := range []struct {
		name   string
		target []string // what follows --cli: the server and how to reach it
	}{
		{"http", []string{url, "--transport", "http"}},
		// The bridge's logs go to stderr, which the Inspector pipes; keep them short.
		{"stdio", []string{"-e", "CORRAL_LOG_LEVEL=warn", corral(t), "mcp-stdio", "--gateway", url, "--transport", "stdio"}},
	} {
		t.Run(transport.name, func(t *testing.T) {
			run := func(args ...string) (stdout, stderr string, err error) {
				t.Helper()
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, inspector, slices.Concat([]string{"--cli"}, transport.target, args)...)
				var out, errOut bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errOut
				err = cmd.Run()
				return out.String(), errOut.String(), err
			}
			printed := func(v any, args ...string) {
				t.Helper()
				stdout, stderr, err := run(args...)
				if err != nil {
					t.Fatalf("inspector %s: %v\n%s", strings.Join(args, " "), err, stderr)
				}
				if err := json.Unmarshal([]byte(stdout), v); err != nil {
					t.Fatalf("inspector %s printed no JSON (%v):\n%s\n%s", strings.Join(args, " "), err, stdout, stderr)
				}
			}

			var list mcpgo.ListToolsResult
			printed(&list, "--method", "tools/list")
			tools := map[string]mcpgo.Tool{}
			var names []string
			for _, tl := range list.Tools {
				tools[tl.Name], names = tl, append(names, tl.Name)
				if tl.InputSchema.Type != "object" || tl.OutputSchema.Type != "object" {
					t.Errorf("%s: input schema %q, output schema %q; want objects", tl.Name, tl.InputSchema.Type, tl.OutputSchema.Type)
				}
			}
			if !slices.Equal(names, want) {
				t.Fatalf("the Inspector lists %v\nan mcp-go client lists %v", names, want)
			}
			call := func(tool string, args ...string) mcpgo.CallToolResult {
				t.Helper()
				var res mcpgo.CallToolResult
				printed(&res, slices.Concat([]string{"--method", "tools/call", "--tool-name", tool}, argPairs(args))...)
				if err := farmtest.CheckResult(tools[tool], &res); err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				return res
			}
			structured := func(res mcpgo.CallToolResult) map[string]any {
				t.Helper()
				m, ok := res.StructuredContent.(map[string]any)
				if res.IsError || !ok {
					t.Fatalf("want a structured result, got isError=%v %v", res.IsError, res.Content)
				}
				return m
			}

			devices := structured(call("list_available_devices"))
			if got := stringsOf(devices["androidDevices"]); !slices.Equal(got, []string{"n1-p1", "n1-p2"}) {
				t.Errorf("list_available_devices: androidDevices %v", got)
			}
			size := structured(call("get_screen_size", "serial", "n1-p1"))
			if size["width"] != 1080.0 || size["height"] != 2400.0 {
				t.Errorf("get_screen_size: %v", size)
			}
			// The CLI passes every --tool-arg as a string and converts those whose input schema
			// says number; the tap lands where those numbers say.
			before := len(f.Phone("n1-p1").InputLog())
			tap := structured(call("tap_xy", "serial", "n1-p1", "x", "0.5", "y", "0.25"))
			contains(t, tap["message"].(string), "(0.500, 0.250)", "pixel (540, 600)")
			if log := f.Phone("n1-p1").InputLog(); len(log) != before+1 || !strings.HasPrefix(log[len(log)-1], "tap ") {
				t.Errorf("the phone's input log does not end with one new tap: %q", log)
			}

			shot := call("screenshot", "serial", "n1-p2")
			var img *mcpgo.ImageContent
			for _, c := range shot.Content {
				if ic, ok := c.(mcpgo.ImageContent); ok {
					img = &ic
				}
			}
			if img == nil || img.Type != "image" || img.MIMEType != "image/jpeg" {
				t.Fatalf("screenshot: no image content of type image/jpeg in %v", shot.Content)
			}
			if b, err := base64.StdEncoding.DecodeString(img.Data); err != nil || len(b) < 1000 || !bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}) {
				t.Fatalf("screenshot: the image data is not a JPEG (%v, %d bytes)", err, len(b))
			}
			if m := structured(shot); m["width"] != 1080.0 || m["type"] != "image/jpeg" {
				t.Errorf("screenshot: structured content %v", m)
			}

			// A tool error is a result the CLI prints; a protocol error makes it fail.
			bad := call("tap_xy", "serial", "n1-p1", "x", "2", "y", "0.25")
			if !bad.IsError {
				t.Fatalf("tap_xy x=2: want isError, got %v", bad.Content)
			}
			contains(t, farmtest.Text(&bad), "x must be between 0 and 1")
			if stdout, stderr, err := run("--method", "tools/call", "--tool-name", "no_such_tool"); err == nil {
				t.Fatalf("calling an unknown tool exited 0: %s", stdout)
			} else {
				contains(t, stderr, "no_such_tool", "not found")
			}
		})
	}
}

// argPairs turns k1, v1, k2, v2 into the CLI's --tool-arg k1=v1 k2=v2.
func argPairs(kv []string) []string {
	if len(kv) == 0 {
		return nil
	}
	out := []string{"--tool-arg"}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, kv[i]+"="+kv[i+1])
	}
	return out
}

// toolNames is tools/list as an mcp-go client sees it, in order.
func toolNames(t *testing.T, f *farmtest.Farm) []string {
	t.Helper()
	list, err := f.Client("names").ListTools(t.Context(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(list.Tools))
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// inspectorCLI finds the Inspector's launcher that make setup installed (on Node 20 or later).
// Without it the test is skipped, unless CORRAL_REQUIRE_TOOLS is set (make test sets it), when
// it fails: the same rule as tool.
func inspectorCLI(t *testing.T) string {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			t.Fatalf(format+": run make setup (it installs what the tests need)", args...)
		}
		t.Skipf(format+"; make setup installs it", args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed (the MCP Inspector needs Node 20 or later)")
	}
	out, err := exec.CommandContext(t.Context(), node, "-p", "process.versions.node").Output()
	if major, _, _ := strings.Cut(strings.TrimSpace(string(out)), "."); err != nil || atoi(major) < 20 {
		missing("the MCP Inspector needs Node 20 or later, found %q", strings.TrimSpace(string(out)))
	}
	dir, err := filepath.Abs(filepath.Join("..", ".tools", "inspector", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Version string }
	b, err := os.ReadFile(filepath.Join(dir, "@modelcontextprotocol", "inspector", "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	if err != nil || pkg.Version != inspectorVersion {
		missing("@modelcontextprotocol/inspector %s is not installed in .tools/inspector (found %q, %v)", inspectorVersion, pkg.Version, err)
	}
	return filepath.Join(dir, ".bin", "mcp-inspector")
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
