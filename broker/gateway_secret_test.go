package broker

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// rolesNATS starts a NATS server with a user of every role (node: nA; the site's leaf user
// shared by every site, as a plain client), with the permissions Corral gives them, and
// connects as the user named.
func rolesNATS(t *testing.T) (connect func(user string) *nats.Conn) {
	t.Helper()
	opts := embedded.Options{Port: -1, StoreDir: t.TempDir()}
	for _, u := range []struct {
		role Role
		node string
	}{{RoleGateway, ""}, {RoleAdmin, ""}, {RoleOperator, ""}, {RoleVision, ""}, {RoleNode, "nA"}, {RoleLeaf, AnyNode}} {
		p, err := PermissionsFor(u.role, u.node)
		require.NoError(t, err)
		opts.Users = append(opts.Users, embedded.User{Name: UserName(u.role, u.node), Password: "pw", Permissions: embedded.Permissions(p)})
	}
	ns, err := embedded.Start(opts, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	pw := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(pw, []byte("pw"), 0o600))
	return func(user string) *nats.Conn {
		nc, err := Connect(ConnectOptions{URL: ns.ClientURL(), User: user, PasswordFile: pw}, slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		return nc
	}
}

// The farm's gateway secret is made once, by the first gateway: every gateway (and the admin's
// CLI) reads the same 32 bytes. No other role reads it: an operator, a node, a vision worker and
// a site are refused the bucket's messages and its stream's info.
func TestGatewaySecretIsSharedByGatewaysAndReadByNoOtherRole(t *testing.T) {
	connect := rolesNATS(t)
	ctx := t.Context()
	secretAs := func(user string, wait time.Duration) ([]byte, error) {
		js, err := jetstream.New(connect(user))
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		return GatewaySecret(ctx, js, 0)
	}
	first, err := secretAs("gateway", 10*time.Second)
	require.NoError(t, err)
	require.Len(t, first, gatewaySecretLen)
	assert.False(t, bytes.Equal(first, make([]byte, gatewaySecretLen)), "the secret is zeros")
	again, err := secretAs("gateway", 10*time.Second) // another gateway, or this one restarted
	require.NoError(t, err)
	assert.Equal(t, first, again, "a second gateway reads another secret")
	admin, err := secretAs("admin", 10*time.Second)
	require.NoError(t, err)
	assert.Equal(t, first, admin, "the admin's front door reads another secret")

	s := kvStream(GatewaySecretBucket)
	reads := []string{jsAPI + "DIRECT.GET." + s + ".$KV." + GatewaySecretBucket + "." + gatewaySecretKey, jsAPI + "DIRECT.GET." + s,
		jsAPI + "STREAM.MSG.GET." + s, jsAPI + "STREAM.INFO." + s, jsAPI + "CONSUMER.CREATE." + s}
	for _, user := range []string{"operator", "node-nA", "vision", LeafUserName(AnyNode)} {
		nc := connect(user)
		for _, subject := range reads {
			rctx, stop := watchRefusalOf(ctx, nc, func(string) bool { return true })
			rctx, cancel := context.WithTimeout(rctx, 10*time.Second)
			m, err := nc.RequestWithContext(rctx, subject, []byte(`{"last_by_subj":"$KV.`+GatewaySecretBucket+`.`+gatewaySecretKey+`"}`))
			var refused *RefusedError
			if !assert.ErrorAs(t, context.Cause(rctx), &refused, "%s: %s not refused (err %v)", user, subject, err) && m != nil {
				assert.NotContains(t, string(m.Data), "data", "%s read the secret: %.200s", user, m.Data)
			}
			cancel()
			stop()
		}
		_, err := secretAs(user, 2*time.Second) // a refused request gets no answer
		assert.Error(t, err, "%s read the gateway secret", user)
	}
}
