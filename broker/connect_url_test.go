package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A URL that url.Parse refuses is quoted whole in nats.go's error: its password was shown
// ("connect to NATS at nats://admin:hunter2pw@[bad: parse \"nats://admin:hunter2pw@[bad\": …"),
// where a URL that parses had it replaced. Passwords holding '/', '#', '"' or a line break
// (which url.Parse and %q change the look of) are hidden too.
func TestConnectErrorHidesAMalformedURLsPassword(t *testing.T) {
	for _, c := range []struct{ url, secret string }{
		{"nats://admin:hunter2pw@[bad", "hunter2pw"},
		{"admin:hunter2pw@[bad", "hunter2pw"},
		{"nats://127.0.0.1:1, nats://admin:hunter2pw@[bad", "hunter2pw"},
		{"nats://admin:hun/ter2pw@127.0.0.1:1", "hun/ter2pw"},
		{"nats://admin:hun#ter2pw@[bad", "hun#ter2pw"},
		{"nats://admin:hun#ter2pw@127.0.0.1:1", "hun"}, // url.Parse: invalid port ":hun" after host
		{"nats://admin:hu\"nt\nr2pw@[bad", "hu\"nt\nr2pw"},
		{"nats://t0ken-abcdef@[bad", "t0ken-abcdef"},
	} {
		_, err := Connect(ConnectOptions{URL: c.url, Name: "t"}, slog.New(slog.DiscardHandler))
		require.Error(t, err, c.url)
		q := strconv.Quote(c.secret)
		assert.NotContains(t, err.Error(), c.secret, c.url)
		assert.NotContains(t, err.Error(), q[1:len(q)-1], c.url)
		assert.Contains(t, err.Error(), "REDACTED", c.url)
	}
	assert.Equal(t, "nats://admin:REDACTED@[bad,nats://REDACTED@h:1,nats://h:2", RedactURLs("nats://admin:pw@[bad,nats://tok@h:1,nats://h:2"))
	assert.Equal(t, "admin:REDACTED@h", RedactURLs("admin:pw@h"), "a URL without a scheme (nats.go adds nats://)")
	assert.Equal(t, "a:REDACTED@h", RedactURLs("a:b://c@h"), `a "://" in the password is not the scheme's`)
}

// A short password or token is hidden in the URL, not wherever its letters are in the error's
// own words: replacing every "s" of the text ("natREDACTED://…, the URL doeREDACTED not parREDACTEDe")
// mangled the error and showed the token.
func TestConnectErrorKeepsItsWordsWithAShortSecret(t *testing.T) {
	for _, c := range []struct{ url, shown, words string }{
		{"nats://s@[bad", "nats://REDACTED@[bad", "the URL does not parse: missing ']' in host (check --nats-url"},
		{"nats://e@127.0.0.1:1", "nats://REDACTED@127.0.0.1:1", "nats: no servers available for connection (is it running? check --nats-url, credentials and TLS options, or give the farm's context: --nats-context (or $NATS_CONTEXT) DATA/nats/admin.json"},
		{"nats://admin:s@[bad", "nats://admin:REDACTED@[bad", "the URL does not parse: missing ']' in host (check --nats-url"},
	} {
		_, err := Connect(ConnectOptions{URL: c.url, Name: "t"}, slog.New(slog.DiscardHandler))
		require.Error(t, err, c.url)
		assert.True(t, strings.HasPrefix(err.Error(), "connect to NATS at "+c.shown+": "), "%s: %v", c.url, err)
		assert.Contains(t, err.Error(), c.words, c.url)
		assert.Equal(t, 1, strings.Count(err.Error(), "REDACTED"), "%s: %v", c.url, err)
	}
	text := `dial "nats://a:b@h:1": nats://a:b@h:1 refused; a:b@h:1 again`
	assert.Equal(t, `dial "nats://a:REDACTED@h:1": nats://a:REDACTED@h:1 refused; a:REDACTED@h:1 again`, redactIn(text, "nats://a:b@h:1"),
		"the URL, quoted or not, with its scheme or without, and nothing else")
}

// For any URL with a password, the password is not in Connect's error: neither in the URL it
// names nor in nats.go's error under it. (A comma separates servers, as nats.go splits them: a
// password cannot hold one.)
func FuzzConnectErrorHidesThePassword(f *testing.F) {
	f.Add("hunter2pw", "[bad")
	f.Add("pa/ss", "127.0.0.1:1")
	f.Add("pa%zz", "h")
	f.Add(`q"\x`, "[bad")
	f.Add("a@b", "[::1")
	f.Add("hun#ter", "127.0.0.1:1")
	f.Add("hunter2pw", "127.0.0.1:1") // parses: the error nats.go would give dialing it
	f.Fuzz(func(t *testing.T, password, host string) {
		// A marker no fixed text of the error holds: the password must show in full to leak.
		secret := "Zx7" + password
		if strings.Contains(secret, ",") || strings.Contains(host, "Zx7") {
			return
		}
		u := "nats://admin:" + secret + "@" + host
		var text string
		if _, err := url.Parse(strings.TrimSpace(u)); err != nil {
			// nats.go refuses the URL before it dials anything: the real error.
			_, err := Connect(ConnectOptions{URL: u, Name: "t"}, slog.New(slog.DiscardHandler))
			require.Error(t, err)
			text = err.Error()
		} else {
			// It would dial the host: an error that shows the URL as given and quoted instead.
			text = redactErr(errorf("connect to NATS at %s: dial %q: %s", RedactURLs(u), u, u), u).Error()
		}
		// Not even its beginning: the marker is in no other text.
		if strings.Contains(text, "Zx7") {
			t.Fatalf("password %q shown in %q", secret, text)
		}
	})
}

func errorf(format string, a ...any) error { return errors.New(fmt.Sprintf(format, a...)) }

// A user and password in the URL (nats://operator:pw@host) log in as that user, whose
// permissions allow replies on its own inbox prefix only: the prefix was taken from --nats-user
// alone, so the first request failed with a refusal to subscribe to _INBOX.…. It is the URL's
// user's now; and the credentials in the URL are warned of once, without the password.
func TestURLCredentialsGetTheirUsersInbox(t *testing.T) {
	op, err := PermissionsFor(RoleOperator, "")
	require.NoError(t, err)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(),
		Users: []embedded.User{{Name: "operator", Password: "hunter2pw", Permissions: embedded.Permissions(op)}}}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	hostPort := strings.TrimPrefix(ns.ClientURL(), "nats://")

	var logged logtest.Buffer
	r := NewRefusals()
	nc, err := Connect(ConnectOptions{URL: "nats://operator:hunter2pw@" + hostPort, Refusals: r}, slog.New(slog.NewTextHandler(&logged, nil)))
	require.NoError(t, err)
	t.Cleanup(nc.Close)

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	wctx, stop := r.Watch(ctx)
	defer stop()
	_, err = nc.RequestWithContext(wctx, "$JS.API.INFO", nil)
	require.NoError(t, err, "refused: %v", context.Cause(wctx))
	assert.Equal(t, InboxPrefix("operator"), nc.Opts.InboxPrefix)

	assert.Equal(t, 1, strings.Count(logged.String(), "the NATS URL carries credentials"), logged.String())
	assert.Contains(t, logged.Line("carries credentials"), "operator:REDACTED@")
	assert.NotContains(t, logged.String(), "hunter2pw")

	// A URL from elsewhere than the command line is warned of naming where it came from, not
	// --nats-url (it blamed --nats-url for a CORRAL_NATS_URL, and said nothing of NATS_URL's).
	for _, c := range []struct {
		o    ConnectOptions
		env  string
		from string
	}{
		{ConnectOptions{URL: "nats://operator:hunter2pw@" + hostPort, URLSource: "CORRAL_NATS_URL"}, "", "the NATS URL from CORRAL_NATS_URL carries credentials"},
		{ConnectOptions{}, "nats://operator:hunter2pw@" + hostPort, "the NATS URL from $NATS_URL carries credentials"},
	} {
		logged = logtest.Buffer{}
		t.Setenv("NATS_URL", c.env)
		nc2, err := Connect(c.o, slog.New(slog.NewTextHandler(&logged, nil)))
		require.NoError(t, err)
		nc2.Close()
		assert.Equal(t, 1, strings.Count(logged.String(), "carries credentials"), logged.String())
		assert.Contains(t, logged.Line("carries credentials"), c.from)
		assert.Contains(t, logged.Line("carries credentials"), "operator:REDACTED@")
		assert.NotContains(t, logged.String(), "--nats-url)")
		assert.NotContains(t, logged.String(), "hunter2pw")
	}
}

// The hint of a refused or failed connection names what was given: a wrong password in the URL
// is not "NATS wants credentials", a user without a password is not "wrong password?", and a
// credentials file that is none is not "is it running?".
func TestConnectHintsNameWhatWasGiven(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(),
		Users: []embedded.User{{Name: "admin", Password: "right-pw"}}}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	hostPort := strings.TrimPrefix(ns.ClientURL(), "nats://")
	t.Setenv("CORRAL_NATS_PASSWORD", "")
	t.Setenv("NATS_PASSWORD", "")
	t.Setenv("NATS_CONTEXT", "")
	garbage := filepath.Join(t.TempDir(), "creds")
	require.NoError(t, os.WriteFile(garbage, []byte("not a creds file\n"), 0o600))

	for _, c := range []struct {
		name      string
		o         ConnectOptions
		want, not string
	}{
		{"wrong password in the URL", ConnectOptions{URL: "nats://admin:wrong-pw@" + hostPort},
			`NATS refused user "admin" of the NATS URL: wrong password?`, "NATS wants credentials"},
		{"token in the URL", ConnectOptions{URL: "nats://some-token@" + hostPort},
			"NATS refused the token in the NATS URL", "NATS wants credentials"},
		{"user without a password", ConnectOptions{URL: ns.ClientURL(), User: "admin"},
			`NATS refused user "admin", for which no password was given: give --nats-password-file`, "wrong password?"},
		{"a file that is no credentials file", ConnectOptions{URL: ns.ClientURL(), CredsFile: garbage},
			`NATS credentials file: unable to extract key pair from file "` + garbage + `": nkeys: no nkey seed found (it is not a NATS credentials file`,
			"is it running?"},
		{"no credentials file", ConnectOptions{URL: ns.ClientURL(), CredsFile: garbage + "-missing"},
			"NATS credentials file: nats: open " + garbage + "-missing: no such file or directory (give the path of a NATS credentials file this process may read)",
			"is it running?"},
		{"nothing given", ConnectOptions{URL: ns.ClientURL()}, "NATS wants credentials", "wrong password?"},
	} {
		c.o.Name = "t"
		_, err := Connect(c.o, slog.New(slog.DiscardHandler))
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
		assert.NotContains(t, err.Error(), c.not, c.name)
		assert.NotContains(t, err.Error(), "wrong-pw", c.name)
	}
}

// ParseURL reads one server of a list as nats.go does (trimmed, nats:// without a scheme), and
// its error about a URL with credentials quotes none of them.
func TestParseURLReadsAsNATSDoesAndHidesPasswords(t *testing.T) {
	u, err := ParseURL(" admin:pw@h:4222 ")
	require.NoError(t, err)
	assert.Equal(t, "nats", u.Scheme)
	assert.Equal(t, "h:4222", u.Host)
	assert.Equal(t, "admin", u.User.Username())

	_, err = ParseURL("nats://admin:hunt#er@h:4222")
	require.Error(t, err)
	assert.Equal(t, `the URL does not parse: invalid port "…" after host`, err.Error())

	_, err = ParseURL("h:port")
	var ue *url.Error
	require.ErrorAs(t, err, &ue, "without credentials, url.Parse's error as it is")
	assert.Equal(t, "nats://h:port", ue.URL)
}
