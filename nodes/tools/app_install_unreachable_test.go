package tools

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// QA: app_install from a URL where nothing listens answered driver_error, while a 404 answered
// bad_input: both are the caller's URL. A refused connection names the host and port and what
// failed; a host with no DNS name is bad_input too. The device is not touched.
func TestAppInstallFromNowhereIsBadInput(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there now

	d, paths, _ := installer()
	_, _, err = runInstall(t, t.Context(), d, "http://"+closed+"/com.example.app.apk?key=sekrit")
	wantCode(t, err, broker.CodeBadInput)
	for _, want := range []string{"nothing listens at " + closed, "connection refused", "check the appUrl's host and port"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v: want %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "sekrit") || len(*paths) != 0 {
		t.Fatalf("%v (installed %v)", err, *paths)
	}

	// .invalid never resolves (RFC 6761); where this machine's DNS cannot say so, the node's
	// DNS is at fault, a driver error, and there is nothing to check.
	const host = "no-such-app-host.invalid"
	var dns *net.DNSError
	if _, err := net.DefaultResolver.LookupHost(context.Background(), host); !errors.As(err, &dns) || !dns.IsNotFound {
		t.Skipf("this machine's DNS does not answer no such host for %s: %v", host, err)
	}
	_, _, err = runInstall(t, t.Context(), d, "https://"+host+"/a.apk")
	wantCode(t, err, broker.CodeBadInput)
	if !strings.Contains(err.Error(), "the host "+host+" does not exist") || len(*paths) != 0 {
		t.Fatalf("%v (installed %v)", err, *paths)
	}
}
