package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"strings"
	"unicode"

	"github.com/corral-farm/corral/internal/buildinfo"
	"github.com/corral-farm/corral/internal/redact"
	"github.com/corral-farm/corral/mcp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// tokenSource is how a command that talks to a gateway finds its bearer token: the file of
// --token-file, else the CORRAL_TOKEN environment variable, else none. There is no --token
// flag: a token on a command line shows in every process listing.
type tokenSource struct {
	file *string
}

func (f *flags) tokenFlag() tokenSource {
	return tokenSource{file: f.String("token-file", "", "file holding the bearer token for a gateway with an auth policy (or set CORRAL_TOKEN)")}
}

// token returns the bearer token, "" when none is configured.
func (t tokenSource) token() (string, error) {
	if *t.file != "" {
		b, err := os.ReadFile(*t.file)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return "", fmt.Errorf("--token-file %s is empty: put the token the gateway's policy knows in it", *t.file)
		}
		if placeholder(tok) {
			return "", fmt.Errorf("--token-file %s holds a placeholder in angle brackets (<your token>, as corral up's welcome and docs/clients.md show one): put the token the gateway's policy knows in it", *t.file)
		}
		if err := oneToken(tok); err != nil {
			return "", fmt.Errorf("--token-file %s %w: it must hold the token alone, on one line (a trailing newline is fine)", *t.file, err)
		}
		return tok, nil
	}
	tok := strings.TrimSpace(os.Getenv("CORRAL_TOKEN"))
	if placeholder(tok) {
		return "", errors.New("CORRAL_TOKEN is a placeholder in angle brackets, as docs/clients.md shows one (<token, only with an auth policy>): " +
			"put a real token there, or drop the \"env\" entry from the client's configuration when the gateway has no auth policy (it needs no token then)")
	}
	if err := oneToken(tok); err != nil {
		return "", fmt.Errorf("CORRAL_TOKEN %w: set it to the token alone", err)
	}
	return tok, nil
}

// placeholder says whether tok is a placeholder pasted as it stands ("<your token>",
// "<token, only with an auth policy>"): no token is written between angle brackets.
func placeholder(tok string) bool {
	return len(tok) > 1 && strings.HasPrefix(tok, "<") && strings.HasSuffix(tok, ">")
}

// oneToken says what else than one token tok holds: it goes into an HTTP header, where a line
// break or a control character is refused, and a space would make it another token.
func oneToken(tok string) error {
	if n := strings.Count(tok, "\n") + 1; n > 1 {
		return fmt.Errorf("holds %d lines", n)
	}
	if i := strings.IndexFunc(tok, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		return fmt.Errorf("holds a space or a control character inside the token (at byte %d)", i)
	}
	return nil
}

// headers returns the HTTP headers that carry the token, if there is one.
func (t tokenSource) headers() (map[string]string, error) {
	tok, err := t.token()
	if err != nil || tok == "" {
		return nil, err
	}
	return map[string]string{"Authorization": "Bearer " + tok}, nil
}

// noRedirects is the MCP client's HTTP client: mcp-go's own follows a redirect anywhere with the
// token in it (GO-2026-6911, not fixed upstream).
func noRedirects() *http.Client {
	return &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		return fmt.Errorf("the gateway redirected to %s://%s: corral follows no redirect (it would carry your token there); give the gateway's own URL", req.URL.Scheme, req.URL.Host)
	}}
}

// dialGateway returns an MCP client of the gateway at url, initialized, carrying the token.
// Its errors show no password of url (gatewayPasswordHidden).
func (t tokenSource) dialGateway(ctx context.Context, url, name string) (*client.Client, error) {
	c, err := t.dial(ctx, url, name)
	return c, gatewayPasswordHidden(err, url)
}

func (t tokenSource) dial(ctx context.Context, url, name string) (*client.Client, error) {
	url, err := gatewayURL(url)
	if err != nil {
		return nil, err
	}
	headers, err := t.headers()
	if err != nil {
		return nil, err
	}
	// The client's own holder at the gateway: another corral run or call of the token's
	// principal holds and queues apart from it (the protocol has no session to tell them apart).
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(mcp.OwnCaller(headers)), transport.WithHTTPBasicClient(noRedirects()))
	if err != nil {
		return nil, fmt.Errorf("MCP client for %s: %w", url, err)
	}
	if err = initialize(ctx, c, name); err != nil {
		_ = c.Close()
		return nil, t.explainRefusal(ctx, url, headers, err)
	}
	return c, nil
}

// explainRefusal says why a gateway did not open a session, in the gateway's own words when it
// answered: mcp-go's errors guess (a 4xx is "likely a legacy SSE server").
func (t tokenSource) explainRefusal(ctx context.Context, url string, headers map[string]string, err error) error {
	status, answer := gatewayAnswer(ctx, url, headers)
	switch {
	case status == http.StatusUnauthorized && headers == nil:
		return fmt.Errorf("gateway %s wants a bearer token (it has an auth policy): pass --token-file FILE or set CORRAL_TOKEN; it said: %s", url, answer)
	case status == http.StatusUnauthorized:
		return fmt.Errorf("gateway %s refused the bearer token from %s: %s", url, t.from(), answer)
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed: // no MCP endpoint there
		return fmt.Errorf("gateway %s answered %d: %s (give the gateway's MCP endpoint, e.g. http://127.0.0.1:8420/mcp)", url, status, answer)
	case status >= 400: // the endpoint's own answer (a gateway draining: 503) says what to do
		return fmt.Errorf("gateway %s answered %d: %s", url, status, answer)
	}
	var noAnswer *neturl.Error // mcp-go says "failed to send request" twice before it
	if errors.As(err, &noAnswer) {
		err = noAnswer
	}
	return fmt.Errorf("gateway %s: %w (is it up? corral up serves one on 127.0.0.1:8420; give another with --gateway URL)", url, err)
}

// from names where the token came from.
func (t tokenSource) from() string {
	if *t.file != "" {
		return "--token-file " + *t.file
	}
	return "CORRAL_TOKEN"
}

// gatewayAnswer POSTs an initialize to url as the MCP client did and returns the status and
// the first line of the body; 0 when nothing answered.
func gatewayAnswer(ctx context.Context, url string, headers map[string]string) (int, string) {
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"corral-cli","version":"` +
		buildinfo.Version() + `"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, ""
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := noRedirects().Do(req)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error.Message != "" {
		return resp.StatusCode, e.Error.Message
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if line == "" {
		line = resp.Status
	}
	return resp.StatusCode, line
}

// mcpURL is a gateway URL with what it lacks added, and the user told: a URL without a
// scheme (127.0.0.1:8420, which url.Parse refuses, or localhost:8420, which it reads as the
// scheme "localhost") gets http://, one without a path (the console's URL, copied) the MCP
// endpoint's, /mcp.
func mcpURL(raw string) string {
	fixed, added := completeURL(raw)
	if len(added) > 0 {
		fmt.Fprintf(os.Stderr, "corral: %s has no %s; using the gateway's MCP endpoint, %s\n", redact.URL(raw), strings.Join(added, " nor "), redact.URL(fixed))
	}
	return fixed
}

// completeURL is mcpURL's URL, and the names of what it added.
func completeURL(raw string) (string, []string) {
	var added []string
	if raw != "" && !strings.Contains(raw, "://") {
		raw, added = "http://"+raw, append(added, "scheme")
	}
	u, err := neturl.Parse(raw)
	if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return raw, added
	}
	u.Path = "/mcp"
	return u.String(), append(added, "path")
}

// checkGateway refuses what dialing the gateway would refuse first, for --check-config: a
// --gateway URL no gateway speaks, and a token that cannot be read or sent. It tells what it
// adds to the URL (mcpURL); the commands check before they dial, and dialing says nothing.
func (t tokenSource) checkGateway(raw string) error {
	_, urlErr := gatewayURL(raw)
	if urlErr == nil {
		mcpURL(raw)
		warnGatewayCredentials(raw)
	}
	_, tokenErr := t.token()
	return errors.Join(urlErr, tokenErr)
}

// gatewayURL is raw with what it lacks added (completeURL), refused (badValue) unless it is an
// http or https URL with a host.
func gatewayURL(raw string) (string, error) {
	fixed, err := checkedGatewayURL(raw)
	return fixed, gatewayPasswordHidden(err, raw)
}

func checkedGatewayURL(raw string) (string, error) {
	fixed, _ := completeURL(raw)
	u, err := neturl.Parse(fixed)
	switch {
	case err != nil:
		var ue *neturl.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", badValue(fmt.Errorf("--gateway %q is not a URL: %w (give http://HOST:PORT/mcp)", raw, err))
	case u.Scheme != "http" && u.Scheme != "https":
		return "", badValue(fmt.Errorf("--gateway %q: a gateway speaks http or https, not %s (give http://HOST:PORT/mcp)", raw, u.Scheme))
	case u.Host == "":
		return "", badValue(fmt.Errorf("--gateway %q has no host (give http://HOST:PORT/mcp)", raw))
	case u.Port() != "" && !tcpPort(u.Port()):
		return "", badValue(fmt.Errorf("--gateway %q: port %s is not a port: give a number from 1 to 65535 (give http://HOST:PORT/mcp)", raw, u.Port()))
	}
	return fixed, nil
}

// initialize starts c and opens its MCP session as client name.
func initialize(ctx context.Context, c *client.Client, name string) error {
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("start MCP client: %w", err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: buildinfo.Version()}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("initialize MCP session: %w", err)
	}
	return nil
}
