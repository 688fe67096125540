package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A request NATS refuses (an operator asking a node to drain) ends at once on a connection with
// Refusals: the watching context's cause names the user, its role and the subject, and says
// that the role may not, not that the server's users are old. Without Refusals it would wait
// out its whole deadline.
func TestRefusalEndsTheRequestAtOnce(t *testing.T) {
	r := NewRefusals()
	nc := operatorConn(t, r, slog.New(slog.DiscardHandler))

	// The deadline is far: the request must end long before it.
	deadline, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	ctx, stop := r.Watch(deadline)
	defer stop()
	_, err := nc.RequestWithContext(ctx, "corral.v1.node.n1.drain", []byte(`{"v":1,"action":"drain"}`))
	require.Error(t, err)
	require.NoError(t, deadline.Err(), "the request waited for its deadline")
	var refused *RefusedError
	require.ErrorAs(t, context.Cause(ctx), &refused)
	assert.Equal(t, RoleOperator, refused.Role)
	assert.Equal(t, "corral.v1.node.n1.drain", refused.Subject)
	assert.False(t, refused.Stale)
	assert.Contains(t, refused.Error(), "this NATS user's role may not do this; node requests need the admin or gateway role")
	assert.NotContains(t, refused.Error(), "nats-auth")
	assert.ErrorIs(t, refused, nats.ErrPermissionViolation)

	// A context that starts watching after the refusal ends at once too.
	late, stopLate := r.Watch(t.Context())
	defer stopLate()
	<-late.Done()
	assert.ErrorAs(t, context.Cause(late), &refused)
}

// The hint to make the server's users again is given only when it can help: when this Corral's
// permissions of the user's role allow what the server refused.
func TestRefusalSaysStaleOnlyWhenItCanBe(t *testing.T) {
	violation := func(op, subject string) error {
		return fmt.Errorf("%w: Permissions Violation for %s to %q", nats.ErrPermissionViolation, op, subject)
	}
	for _, c := range []struct {
		user, op, subject string
		stale             bool
	}{
		{"operator", "Publish", "corral.v1.node.n1.task", false},
		{"admin", "Publish", "corral.v1.node.n1.task", true},
		{"admin", "Publish", "$JS.API.STREAM.CREATE.KV_corral_lease_groups", true},
		{"operator", "Publish", "$JS.API.STREAM.CREATE.KV_corral_lease_groups", false},
		{"operator", "Publish", "$JS.API.CONSUMER.CREATE.KV_corral_lease_groups.x.y", true},
		{"node-n1", "Publish", "corral.v1.progress.n1.t_1", true},
		{"node-n1", "Publish", "corral.v1.progress.n2.t_1", false},
		{"operator", "Subscription", "corral.v1.frames.n1.s1", false},
		{"gateway", "Subscription", "corral.v1.frames.n1.s1", true},
		{"someone", "Publish", "corral.v1.node.n1.task", false},
	} {
		r := refusalOf(c.user, violation(c.op, c.subject))
		require.NotNil(t, r)
		assert.Equal(t, c.subject, r.Subject, "%+v", c)
		assert.Equal(t, c.stale, r.Stale, "%+v", c)
		assert.Equal(t, c.stale, strings.Contains(r.Error(), "run corral nats-auth again"), "%+v: %v", c, r)
	}
	assert.Nil(t, refusalOf("admin", errors.New("nats: timeout")))
}

func TestSubjectCovers(t *testing.T) {
	for _, c := range []struct {
		pattern, subject string
		want             bool
	}{
		{"a.b", "a.b", true}, {"a.*", "a.b", true}, {"a.*", "a.b.c", false}, {"a.>", "a.b.c", true},
		{"a.>", "a", false}, {"a.b", "a.c", false}, {"a.*.c", "a.b.c", true}, {"a.*", "a.>", false}, {">", "x", true},
	} {
		assert.Equal(t, c.want, subjectCovers(c.pattern, c.subject), "%s covers %s", c.pattern, c.subject)
	}
}

// A long-running process started with another role's context (a gateway given the operator's)
// has no Refusals: making its stores waited out JetStream's 5 s timeout for each refused API
// request, and the refusal was logged and then returned. It ends at the refusal now, told once:
// by the error, not the log too.
func TestStoresRefusedEndAtOnceAndAreToldOnce(t *testing.T) {
	var logged logtest.Buffer
	nc := operatorConn(t, nil, slog.New(slog.NewTextHandler(&logged, nil)))

	deadline, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err := EnsureStores(deadline, nc, StoreOptions{})
	require.Error(t, err)
	var refused *RefusedError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, RoleOperator, refused.Role)
	assert.True(t, strings.HasPrefix(refused.Subject, "$JS.API."), refused.Subject)
	assert.NotContains(t, err.Error(), "deadline exceeded", "the store waited for its request's timeout")
	assert.NotContains(t, logged.String(), "NATS refused", "the refusal is the error; logging it too tells it twice")

	// Refusals of subjects it does not watch still reach the connection's handler.
	require.NoError(t, nc.Publish("corral.v1.node.n1.drain", nil))
	require.NoError(t, nc.Flush())
	require.Eventually(t, func() bool { return strings.Contains(logged.String(), "NATS refused") }, 10*time.Second, 10*time.Millisecond,
		"a later refusal is logged as before")
}

// operatorConn connects to a new embedded server as its one user, an operator, telling refusals
// (nil: none) and logging to log.
func operatorConn(t *testing.T, refusals *Refusals, log *slog.Logger) *nats.Conn {
	op, err := PermissionsFor(RoleOperator, "")
	require.NoError(t, err)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(),
		Users: []embedded.User{{Name: "operator", Password: "pw", Permissions: embedded.Permissions(op)}}}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	pwFile := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(pwFile, []byte("pw"), 0o600))
	nc, err := Connect(ConnectOptions{URL: ns.ClientURL(), User: "operator", PasswordFile: pwFile, Refusals: refusals}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}
