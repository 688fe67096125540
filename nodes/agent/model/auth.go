package model

import (
	"net/http"
	"net/http/httptrace"
)

// bearer is the HTTP client go-openai sends through. It adds the Authorization header
// itself, so the key lives only in a Secret: go-openai would keep it in a plain string that
// fmt prints through a pointer. It follows no redirect, which would carry the key along, and
// reads no answer past MaxAnswerBytes.
type bearer struct {
	key Secret
	hc  *http.Client
}

func newBearer(key Secret) *bearer {
	return &bearer{key: key, hc: &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		return &redirectError{to: req.URL.Scheme + "://" + req.URL.Host}
	}}}
}

func (b *bearer) Do(req *http.Request) (*http.Response, error) {
	if b.key.IsSet() {
		req.Header.Set("Authorization", "Bearer "+b.key.Reveal())
	}
	st := answerStateOf(req.Context())
	// Whether the request went out tells a server that closed the connection on it (a
	// cut-off, worth a retry) from one that is not there (unreachable). The transport calls
	// this from its own goroutine.
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		WroteRequest: func(w httptrace.WroteRequestInfo) {
			if w.Err == nil {
				st.sent.Store(true)
			}
		},
	}))
	resp, err := b.hc.Do(req)
	if err == nil {
		st.note(resp)
	}
	return resp, err
}

// redirectError stops the HTTP client at a redirect.
type redirectError struct{ to string }

func (e *redirectError) Error() string { return "redirected to " + e.to }
