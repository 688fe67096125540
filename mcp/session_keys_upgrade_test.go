package mcp_test

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// oldFarmKey is the one key of Corral before per-principal keys (d8d5805's sessions.go): the
// label and every token's hash, in the policy file's order.
func oldFarmKey(tokens ...string) []byte {
	m := sha256.New()
	m.Write([]byte("corral mcp session id v1"))
	for _, t := range tokens {
		h := sha256.Sum256([]byte(t))
		m.Write(h[:])
	}
	return m.Sum(nil)
}

// oldIDMAC is an old gateway's MAC of an id's nonce for principal.
func oldIDMAC(key []byte, principal string, nonce []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(nonce)
	m.Write([]byte{0})
	m.Write([]byte(principal))
	return m.Sum(nil)
}

// oldSessionID is a session id an old gateway issued to principal.
func oldSessionID(key []byte, principal string) string {
	var u uuid.UUID
	_, _ = rand.Read(u[:8])
	u[6] = u[6]&0x0f | 0x40
	copy(u[8:], oldIDMAC(key, principal, u[:8]))
	u[8] = u[8]&0x3f | 0x80
	return "mcp-session-" + u.String()
}

// oldGatewayTakes reports whether an old gateway took id as principal's.
func oldGatewayTakes(key []byte, principal, id string) bool {
	u, err := uuid.Parse(strings.TrimPrefix(id, "mcp-session-"))
	if err != nil {
		return false
	}
	want := oldIDMAC(key, principal, u[:8])
	want[0] = want[0]&0x3f | 0x80
	return hmac.Equal(want[:8], u[8:])
}

// oldConsole are an old console's keys (d8d5805's login_cookie.go), derived from the farm key.
type oldConsole struct{ login, seal, csrf []byte }

func oldConsoleKeys(farm []byte) oldConsole {
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, farm)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	return oldConsole{login: derive("corral console login v1"), seal: derive("corral console lease seal v1"), csrf: derive("corral console csrf v1")}
}

func (k oldConsole) loginMAC(name, token string, exp int64) []byte {
	h := sha256.Sum256([]byte(token))
	m := hmac.New(sha256.New, k.login)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write(h[:])
	m.Write([]byte{0})
	m.Write([]byte(strconv.FormatInt(exp, 10)))
	return m.Sum(nil)
}

// loginCookie is an old console's login cookie of name (whose token is token).
func (k oldConsole) loginCookie(name, token string) *http.Cookie {
	exp := time.Now().Add(time.Hour).Unix()
	return &http.Cookie{Name: "corral_console", Value: "1." + base64.RawURLEncoding.EncodeToString([]byte(name)) + "." +
		strconv.FormatInt(exp, 10) + "." + base64.RawURLEncoding.EncodeToString(k.loginMAC(name, token, exp))}
}

// takesLogin reports whether an old console took the login cookie value as name's.
func (k oldConsole) takesLogin(value, name, token string) bool {
	parts := strings.Split(value, ".")
	if len(parts) != 4 {
		return false
	}
	exp, _ := strconv.ParseInt(parts[2], 10, 64)
	mac, _ := base64.RawURLEncoding.DecodeString(parts[3])
	return hmac.Equal(mac, k.loginMAC(name, token, exp))
}

func (k oldConsole) csrfToken(sid, principal string) string {
	m := hmac.New(sha256.New, k.csrf)
	m.Write([]byte(sid))
	m.Write([]byte{0})
	m.Write([]byte(principal))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// held is an old console's sealed cookie of a lease of serial that principal acquired.
func (k oldConsole) held(t *testing.T, principal, serial, handle string) *http.Cookie {
	sum := sha256.Sum256([]byte(serial))
	name := "corral_lease_" + hex.EncodeToString(sum[:8])
	block, err := aes.NewCipher(k.seal[:32])
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{"p": principal, "s": serial, "h": handle})
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	return &http.Cookie{Name: name, Value: base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, b, []byte(name)))}
}

// keysGateway serves a gateway of its own over f with pol, issuing under keys.
func keysGateway(t *testing.T, f *farmtest.Farm, pol *mcp.Policy, keys mcp.SessionKeys) string {
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()),
		mcp.Options{Policy: pol, SessionKeys: keys})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

var handleIn = regexp.MustCompile(`"handle":"([^"]+)"`)

// A rolling upgrade from Corral before per-principal keys with --session-keys farm ends no
// session or login: a new gateway takes the session ids, login cookies, CSRF tokens and sealed
// lease cookies an old gateway (the farm-wide key) issued, still bound to their principal; an id
// of another principal is refused with a 404 that names the other version as a likely cause.
// Without that flag they are refused (TestKeysFromThePolicyFileAloneOpenNothing): the old key
// holds no secret.
func TestUpgradedGatewayTakesOldSessionIDsAndCookies(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	gw := keysGateway(t, f, policyOf(t, "reader", readerToken, "writer", writerToken), mcp.SessionKeysFarm)
	old := oldFarmKey(readerToken, writerToken)
	plain := &http.Client{}

	// The protocol session an old gateway opened.
	session := oldSessionID(old, "reader")
	if resp, body := do(t, plain, http.MethodPost, gw+"/mcp", listTools, mcpHeaders(readerToken, session)); resp.StatusCode != http.StatusOK {
		t.Errorf("an old gateway's session id is refused: %d %.300s", resp.StatusCode, body)
	}
	resp, body := do(t, plain, http.MethodPost, gw+"/mcp", listTools, mcpHeaders(readerToken, oldSessionID(old, "writer")))
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "a gateway of another Corral version issued it") {
		t.Errorf("the writer's old id taken from the reader, or the 404 names no version: %d %.300s", resp.StatusCode, body)
	}

	// A lease the reader took through the old console (its handle sealed in the old cookie).
	resp, body = do(t, plain, http.MethodPost, gw+"/mcp",
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"acquire_device","arguments":{"serial":"`+serial+`"}}}`,
		mcpHeaders(readerToken, session))
	m := handleIn.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("acquire_device: %d %.500s", resp.StatusCode, body)
	}

	// The console: the old login, CSRF token and lease cookie.
	keys := oldConsoleKeys(old)
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(gw)
	sid := "old-console-session-0123456789"
	jar.SetCookies(u, []*http.Cookie{keys.loginCookie("reader", readerToken), {Name: "corral_console_session", Value: sid},
		keys.held(t, "reader", serial, m[1])})
	browser := &http.Client{Jar: jar}
	page := "/devices/" + url.PathEscape(serial)
	if resp, body := do(t, browser, http.MethodGet, gw+page, "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("an old gateway's login is refused: %d %.300s", resp.StatusCode, body)
	}
	resp, body = do(t, browser, http.MethodPost, gw+"/console/devices/"+url.PathEscape(serial)+"/actions/release", "",
		map[string]string{"X-Corral-CSRF": keys.csrfToken(sid, "reader")})
	var a map[string]any
	_ = json.Unmarshal([]byte(body), &a)
	if resp.StatusCode != http.StatusOK || a["ok"] != true {
		t.Errorf("an old gateway's CSRF token or lease cookie is refused: release answered %d %.300s", resp.StatusCode, body)
	}
}

// With --session-keys=farm a gateway issues what an old gateway takes (for a roll during which
// old ones still serve), and takes what a gateway issuing per-principal keys issued.
func TestFarmSessionKeysIssueWhatOldGatewaysTake(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	pol := policyOf(t, "reader", readerToken, "writer", writerToken)
	farm := keysGateway(t, f, pol, mcp.SessionKeysFarm)
	principal := keysGateway(t, f, pol, mcp.SessionKeysPrincipal)
	old := oldFarmKey(readerToken, writerToken)
	plain := &http.Client{}

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	resp, body := do(t, plain, http.MethodPost, farm+"/mcp", initialize, mcpHeaders(readerToken, ""))
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || !oldGatewayTakes(old, "reader", id) {
		t.Errorf("--session-keys=farm issued an id an old gateway refuses: %d %q %.300s", resp.StatusCode, id, body)
	}
	resp, _ = do(t, plain, http.MethodPost, principal+"/mcp", initialize, mcpHeaders(readerToken, ""))
	id = resp.Header.Get("Mcp-Session-Id")
	if oldGatewayTakes(old, "reader", id) {
		t.Errorf("--session-keys=principal issued an id under the old key: %q", id)
	}
	if resp, body := do(t, plain, http.MethodPost, farm+"/mcp", listTools, mcpHeaders(readerToken, id)); resp.StatusCode != http.StatusOK {
		t.Errorf("--session-keys=farm refuses a per-principal id: %d %.300s", resp.StatusCode, body)
	}

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if resp, body := do(t, browser, http.MethodGet, farm+"/devices/"+url.PathEscape(serial)+"?token="+readerToken, "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("log in: %d %.300s", resp.StatusCode, body)
	}
	u, _ := url.Parse(farm)
	var login string
	for _, c := range jar.Cookies(u) {
		if c.Name == "corral_console" {
			login = c.Value
		}
	}
	if !oldConsoleKeys(old).takesLogin(login, "reader", readerToken) {
		t.Errorf("--session-keys=farm set a login cookie an old gateway refuses: %q", login)
	}
}

func TestParseSessionKeys(t *testing.T) {
	for in, want := range map[string]mcp.SessionKeys{"": mcp.SessionKeysPrincipal, "principal": mcp.SessionKeysPrincipal, "farm": mcp.SessionKeysFarm} {
		if got, err := mcp.ParseSessionKeys(in); err != nil || got != want {
			t.Errorf("ParseSessionKeys(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := mcp.ParseSessionKeys("shared"); err == nil || !strings.Contains(err.Error(), "give principal") {
		t.Errorf("ParseSessionKeys(shared): %v; want a refusal saying what to give", err)
	}
}
