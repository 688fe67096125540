package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/corral-farm/corral/internal/buildinfo"
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
		return tok, nil
	}
	return strings.TrimSpace(os.Getenv("CORRAL_TOKEN")), nil
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
func (t tokenSource) dialGateway(ctx context.Context, url, name string) (*client.Client, error) {
	headers, err := t.headers()
	if err != nil {
		return nil, err
	}
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(headers), transport.WithHTTPBasicClient(noRedirects()))
	if err != nil {
		return nil, fmt.Errorf("MCP client for %s: %w", url, err)
	}
	err = initialize(ctx, c, name)
	switch {
	case errors.Is(err, transport.ErrAuthorizationRequired):
		err = fmt.Errorf("gateway %s refused the session (401: %w): it has an auth policy; pass --token-file FILE or set CORRAL_TOKEN", url, err)
	case err != nil:
		err = fmt.Errorf("gateway %s: %w (is it up? corral up serves one on 127.0.0.1:8420)", url, err)
	}
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
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
