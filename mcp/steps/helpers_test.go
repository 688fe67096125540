package steps

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/corral-farm/corral/internal/farmtest"
)

// startFarm starts a farm of one node with two simulated phones (n1-p1, n1-p2), connects an MCP
// client to its gateway, and reads the gateway's catalog, as `corral run` does.
func startFarm(t *testing.T) (*farmtest.Farm, *client.Client, *Catalog) {
	t.Helper()
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	c := f.Client("steps-test")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cat, err := FetchCatalog(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Names()) == 0 {
		t.Fatal("the gateway lists no tools")
	}
	return f, c, cat
}

// mustParse parses a steps document or fails the test.
func mustParse(t *testing.T, doc string) *Document {
	t.Helper()
	d, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("parse:\n%s\n%v", doc, err)
	}
	return d
}

// jsonOf normalizes a Go value to JSON's value model, for comparisons.
func jsonOf(t *testing.T, v any) any {
	t.Helper()
	out, err := jsonValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
