package tools

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A shared node takes apps from nowhere until its operator names sources, and its refusals
// tell nothing of what exists: a file outside the sources, present or not, and a local port,
// open or closed, get the same answer, and nothing is read or fetched.
func TestAppSourcesOnASharedNode(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("PK-apk"))
	}))
	defer srv.Close()
	closed := closedPort(t)
	dir := t.TempDir()
	apps := filepath.Join(dir, "apps")
	require.NoError(t, os.MkdirAll(apps, 0o700))
	secret := filepath.Join(dir, "shadow")
	require.NoError(t, os.WriteFile(secret, []byte("root:x"), 0o600))
	require.NoError(t, os.Symlink(secret, filepath.Join(apps, "link.apk")))
	require.NoError(t, os.WriteFile(filepath.Join(apps, "ok.apk"), []byte("PK-apk"), 0o600))

	refused := func(c OpsConfig, app string) string {
		t.Helper()
		d, paths, _ := installer()
		_, _, err := runInstallWith(t, context.Background(), c, d, app)
		wantCode(t, err, broker.CodeBadInput)
		assert.Empty(t, *paths, "%s reached the device", app)
		return err.Error()
	}
	// Nothing named: nothing at all, and the answer says who can change that.
	none := OpsConfig{Shared: true}
	assert.Contains(t, refused(none, srv.URL+"/x.apk"), "none: its operator names them with --app-sources")
	assert.Contains(t, refused(none, filepath.Join(apps, "ok.apk")), "not among the app sources")

	// "*" and a directory: public hosts and that directory.
	c := OpsConfig{Shared: true, AppSources: []string{"*", apps}}
	msg := func(app string) string {
		return regexp.MustCompile(`[^ ]*(shadow|nothing-here|link\.apk)|:\d+`).ReplaceAllString(refused(c, app), "X")
	}
	assert.Equal(t, msg(secret), msg(filepath.Join(dir, "nothing-here")), "a file outside the sources, present or not")
	assert.Equal(t, msg(secret), msg(filepath.Join(apps, "link.apk")), "a link out of a source directory")
	assert.Equal(t, msg(secret), msg(filepath.Join(apps, "..", "shadow")))
	d, paths, _ := installer()
	_, _, err := runInstallWith(t, context.Background(), c, d, filepath.Join(apps, "ok.apk"))
	require.NoError(t, err)
	assert.Len(t, *paths, 1)

	// Local addresses are not public: refused before any connection, open port or closed.
	open, shut := refused(c, srv.URL+"/x.apk"), refused(c, "http://127.0.0.1:"+closed+"/x.apk")
	assert.Contains(t, open, "resolves to no public address the node may fetch from")
	assert.Equal(t, regexp.MustCompile(`:\d+`).ReplaceAllString(open, ""), regexp.MustCompile(`:\d+`).ReplaceAllString(shut, ""))
	assert.Zero(t, hits.Load(), "a refused appUrl was fetched")

	// A name that resolves to a local address and one that does not resolve read the same: a
	// caller learns neither which names the node's DNS knows nor the resolver's address.
	host := regexp.MustCompile(`(localhost|nothing-here\.invalid)(:\d+)?`)
	local := refused(c, "http://localhost:"+closed+"/x.apk")
	unknown := refused(c, "http://nothing-here.invalid/x.apk")
	assert.Equal(t, host.ReplaceAllString(local, "HOST"), host.ReplaceAllString(unknown, "HOST"))
	assert.NotContains(t, unknown, "lookup", "the lookup's error (and the resolver's address) is shown")

	// Named, a local host is the operator's choice.
	named := OpsConfig{Shared: true, AppSources: []string{"127.0.0.1"}}
	d, paths, _ = installer()
	_, _, err = runInstallWith(t, context.Background(), named, d, srv.URL+"/x.apk")
	require.NoError(t, err)
	assert.Len(t, *paths, 1)
}

// failOf returns the error of installing app with c, which must fail without installing.
func failOf(t *testing.T, c OpsConfig, app string) string {
	t.Helper()
	d, paths, _ := installer()
	_, _, err := runInstallWith(t, context.Background(), c, d, app)
	require.Error(t, err, app)
	assert.Empty(t, *paths)
	return err.Error()
}

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, port, _ := net.SplitHostPort(l.Addr().String())
	require.NoError(t, l.Close())
	return port
}

func TestPublicAddresses(t *testing.T) {
	for ip, want := range map[string]bool{
		"93.184.216.34": true, "2606:2800:220:1::1": true,
		"127.0.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "fe80::1": false, "100.64.0.1": false, "0.0.0.0": false, "::": false,
		"fd00::1": false, "224.0.0.1": false, "255.255.255.255": false, "::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false,
	} {
		assert.Equal(t, want, public(net.ParseIP(ip)), ip)
	}
}
