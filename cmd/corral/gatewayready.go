package main

import "net/http"

// afterRegistry holds every request but the probes' until read is closed, when the gateway has
// read the device registry once: a call answered before would find no device ("unknown
// serial") where the farm has one, as clients reconnecting to a restarted gateway did.
// /healthz, /readyz (which says why not ready) and /metrics answer at once.
func afterRegistry(read <-chan struct{}, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz", "/readyz", "/metrics":
		default:
			select {
			case <-read:
			case <-r.Context().Done():
				http.Error(w, "the gateway is starting: it has not read the device registry yet; try again", http.StatusServiceUnavailable)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
