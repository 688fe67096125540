package model

import "net/http"

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
	resp, err := b.hc.Do(req)
	if err == nil {
		answerStateOf(req.Context()).note(resp)
	}
	return resp, err
}

// redirectError stops the HTTP client at a redirect.
type redirectError struct{ to string }

func (e *redirectError) Error() string { return "redirected to " + e.to }
