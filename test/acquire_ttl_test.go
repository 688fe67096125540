package test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A ttl_seconds over the node's cap (--lease-ttl) is cut to the cap, and the answer says so;
// one within it is granted as asked, without a word.
func TestAcquireSaysWhenItsTTLWasCut(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, LeaseTTL: 30 * time.Second})
	c := f.Client("agent")
	res := farmtest.MustCall(t, c, "acquire_device", args("serial", "n1-p1", "ttl_seconds", 7200))
	contains(t, farmtest.Text(res), "ttl_seconds 7200 is over this node's cap", "ends after 30s without a call")
	res = farmtest.MustCall(t, c, "acquire_device", args("serial", "n1-p2", "ttl_seconds", 10))
	if text := farmtest.Text(res); strings.Contains(text, "cap") {
		t.Fatalf("a ttl within the cap is told it was cut: %s", text)
	}
}
