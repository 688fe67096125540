package console

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A login cookie lasts no longer than a gateway issues one (loginTTL, give or take a clock's
// skew): one that says it lasts to 2100, which whoever holds the login key could mint, is refused.
func TestLoginLongerThanAnyIssuedIsRefused(t *testing.T) {
	c := New(Config{Farm: testFarm(), Authenticate: authenticate, Named: named})
	v, _ := named("labber")
	taken := func(exp time.Time) bool {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.AddCookie(&http.Cookie{Name: cookieName, Value: c.loginValue(v, exp)})
		_, _, ok := c.loginOf(r)
		return ok
	}
	now := time.Now()
	if !taken(now.Add(loginTTL)) {
		t.Fatal("a login as the gateway issues it (loginTTL from now) is refused")
	}
	for _, exp := range []time.Time{now.Add(loginTTL + 2*loginSkew), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if taken(exp) {
			t.Errorf("a login until %s (%s from now, past loginTTL %s) is taken", exp.Format(time.RFC3339), exp.Sub(now).Round(time.Minute), loginTTL)
		}
	}
}
