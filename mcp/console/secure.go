package console

import (
	"net/http"
	"strings"
)

// overTLS says whether the browser reached the console over https: served over TLS here, or
// through a proxy that ended TLS and says so (X-Forwarded-Proto, Forwarded: proto=https), as
// an Ingress does. It only marks cookies Secure, so a client that claims https falsely only
// keeps its own cookies off plain http.
func overTLS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ","); strings.EqualFold(strings.TrimSpace(proto), "https") {
		return true
	}
	first, _, _ := strings.Cut(r.Header.Get("Forwarded"), ",")
	for _, pair := range strings.Split(first, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(pair), "=")
		if strings.EqualFold(k, "proto") && strings.EqualFold(strings.Trim(v, `"`), "https") {
			return true
		}
	}
	return false
}
