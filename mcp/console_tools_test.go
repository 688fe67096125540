package mcp_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A gateway whose --tools leave screenshot out (phone-agent) serves no live screen in its
// console, to a token that may call every tool as to anonymous on loopback: /console/frames
// answers 403 saying the gateway does not serve screenshot, the pages say so and turn the
// screens off (data-screens="false"), as /mcp refuses screenshot. The same farm's gateway with
// every tool streams the frames, so it is the --tools that refuse them. A gateway whose tools
// change no device shows the read-only badge.
func TestConsoleFollowsTheGatewaysTools(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	tools, err := mcp.SelectTools("phone-agent")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(tools, "screenshot") {
		t.Fatalf("the phone-agent profile serves screenshot: pick a profile without it: %v", tools)
	}
	serve := func(opts mcp.Options) string {
		g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), opts)
		t.Cleanup(g.Close)
		hs := httptest.NewServer(g.Handler())
		t.Cleanup(hs.Close)
		return hs.URL
	}
	pol, err := mcp.ParsePolicy([]byte("principals:\n  - name: full\n    token: "+fullToken+"\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	profiled, open := serve(mcp.Options{Tools: tools, Policy: pol}), serve(mcp.Options{Tools: tools})

	if listed := toolsListed(t, profiled, fullToken); slices.Contains(listed, "screenshot") || !slices.Contains(listed, "take_screenshot") {
		t.Fatalf("/mcp of the phone-agent gateway lists %v: the console's rule below would not mirror it", listed)
	}

	// frames opens the frames stream of serial and returns its status and first bytes.
	frames := func(b *http.Client, gw string) (int, string) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, gw+"/console/frames?serial="+url.QueryEscape(serial), nil)
		resp, err := b.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		return resp.StatusCode, string(buf[:n])
	}
	const why = "This gateway does not serve screenshot (its --tools leave it out)"
	for name, b := range map[string]struct {
		c  *http.Client
		gw string
	}{"full (its token may call screenshot)": {loggedIn(t, profiled, fullToken), profiled}, "anonymous": {http.DefaultClient, open}} {
		if code, body := frames(b.c, b.gw); code != http.StatusForbidden || !strings.Contains(body, why) {
			t.Errorf("frames for %s on the phone-agent gateway: %d %q; want 403 saying %q", name, code, body, why)
		}
		for _, page := range []string{"/", "/devices/" + url.PathEscape(serial)} {
			_, html := do(t, b.c, http.MethodGet, b.gw+page, "", nil)
			if !strings.Contains(html, why) || !strings.Contains(html, `data-screens="false"`) {
				t.Errorf("%s for %s on the phone-agent gateway does not say why it shows no screens, or does not turn them off", page, name)
			}
		}
	}
	if code, body := frames(http.DefaultClient, serve(mcp.Options{})); code != http.StatusOK {
		t.Errorf("frames on the gateway with every tool: %d %q", code, body)
	}

	// A gateway that serves no tool that changes devices: full, no operator, may change
	// nothing there, and gets the read-only badge.
	reads := serve(mcp.Options{Tools: []string{"list_available_devices", "get_device_status", "screenshot"}, Policy: pol})
	if _, html := do(t, loggedIn(t, reads, fullToken), http.MethodGet, reads+"/devices/"+url.PathEscape(serial), "", nil); !strings.Contains(html, `class="ro"`) {
		t.Errorf("full's device page on a gateway of reading tools has no read-only badge")
	}
}

// toolsListed are the tools /mcp of gw lists for token.
func toolsListed(t *testing.T, gw, token string) []string {
	t.Helper()
	c, err := client.NewStreamableHttpClient(gw+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "tools-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	res, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}
