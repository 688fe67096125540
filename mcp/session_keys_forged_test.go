package mcp_test

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/farmtest"
)

// policyOnlyKey is the key of principal name computed from what a policy file holds (its name
// and token_sha256) and this code's label, as a reader of the file would compute it: what
// every gateway keyed principal's ids and cookies with before the farm's gateway secret.
func policyOnlyKey(name, token string) []byte {
	h := sha256.Sum256([]byte(token))
	m := hmac.New(sha256.New, []byte("corral mcp session id v1"))
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write(h[:])
	return m.Sum(nil)
}

// unseal opens a console's sealed lease cookie under a console key seal; false when it does not open.
func unseal(t *testing.T, seal []byte, c *http.Cookie) (map[string]string, bool) {
	t.Helper()
	block, err := aes.NewCipher(seal[:32])
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(b) < aead.NonceSize() {
		t.Fatalf("lease cookie %s: not base64url: %v", c.Name, err)
	}
	plain, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], []byte(c.Name))
	if err != nil {
		return nil, false
	}
	var h map[string]string
	_ = json.Unmarshal(plain, &h)
	return h, true
}

// Whoever reads the policy file (token hashes, a name) cannot mint a principal's console login,
// its protocol session ids nor the farm-wide key of an older Corral's, nor open its sealed lease
// cookies: every key holds the farm's gateway secret, which the file does not.
func TestKeysFromThePolicyFileAloneOpenNothing(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	gw := policyGateway(t, f, policyOf(t, "reader", readerToken, "writer", writerToken))
	forged := oldConsoleKeys(policyOnlyKey("writer", writerToken)) // the console's keys, derived as it derives them
	page := "/devices/" + url.PathEscape(serial)
	u, _ := url.Parse(gw)

	// A login cookie for the writer, made without its token.
	jar, _ := cookiejar.New(nil)
	jar.SetCookies(u, []*http.Cookie{forged.loginCookie("writer", writerToken)})
	if resp, body := do(t, &http.Client{Jar: jar}, http.MethodGet, gw+page, "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a login cookie forged from the policy file is taken: %d %.300s", resp.StatusCode, body)
	}
	// The farm-wide key of Corral before per-principal keys is over token hashes alone too: a
	// gateway not told to take it (--session-keys farm) refuses what it keys.
	old := oldConsoleKeys(oldFarmKey(readerToken, writerToken))
	jar, _ = cookiejar.New(nil)
	jar.SetCookies(u, []*http.Cookie{old.loginCookie("writer", writerToken)})
	if resp, body := do(t, &http.Client{Jar: jar}, http.MethodGet, gw+page, "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a login cookie under the old farm-wide key is taken: %d %.300s", resp.StatusCode, body)
	}

	// Protocol session ids, made without the gateway.
	plain := &http.Client{}
	for what, id := range map[string]string{"the principal's key": oldSessionID(policyOnlyKey("reader", readerToken), "reader"),
		"the old farm-wide key": oldSessionID(oldFarmKey(readerToken, writerToken), "reader")} {
		if resp, body := do(t, plain, http.MethodPost, gw+"/mcp", listTools, mcpHeaders(readerToken, id)); resp.StatusCode != http.StatusNotFound {
			t.Errorf("a session id under %s computed from the policy file is taken: %d %.300s", what, resp.StatusCode, body)
		}
	}

	// A lease the writer acquired on the console: its cookie does not open under the keys the file gives.
	jar, _ = cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, body := do(t, browser, http.MethodGet, gw+page+"?token="+writerToken, "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("log in: %d %.300s", resp.StatusCode, body)
	}
	resp, body = do(t, browser, http.MethodPost, gw+"/console/devices/"+url.PathEscape(serial)+"/actions/acquire", "",
		map[string]string{"X-Corral-CSRF": csrfOf(t, body)})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"ok":true`) {
		t.Fatalf("acquire: %d %.300s", resp.StatusCode, body)
	}
	var sealed *http.Cookie
	for _, c := range jar.Cookies(u) {
		if strings.HasPrefix(c.Name, "corral_lease_") {
			sealed = c
		}
	}
	if sealed == nil {
		t.Fatalf("no lease cookie after acquire: %v", jar.Cookies(u))
	}
	if h, ok := unseal(t, forged.seal, sealed); ok {
		t.Errorf("the lease cookie opens under a key from the policy file: handle %q is out", h["h"])
	}
}
