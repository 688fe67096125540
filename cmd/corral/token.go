package main

import (
	"fmt"
	"os"
	"strings"
)

// tokenSource is how a command that talks to a gateway finds its bearer token: the file of
// --token-file, else the CORRAL_TOKEN environment variable, else none. There is no --token
// flag: a token on a command line shows in every process listing.
type tokenSource struct {
	file *string
}

func (f *flags) tokenFlag() tokenSource {
	return tokenSource{file: f.String("token-file", "", "file holding the bearer token for a gateway with an auth policy (or set CORRAL_TOKEN)")}
}

// token returns the bearer token, "" when none is configured.
func (t tokenSource) token() (string, error) {
	if *t.file != "" {
		b, err := os.ReadFile(*t.file)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return "", fmt.Errorf("--token-file %s is empty: put the token the gateway's policy knows in it", *t.file)
		}
		return tok, nil
	}
	return strings.TrimSpace(os.Getenv("CORRAL_TOKEN")), nil
}

// headers returns the HTTP headers that carry the token, if there is one.
func (t tokenSource) headers() (map[string]string, error) {
	tok, err := t.token()
	if err != nil || tok == "" {
		return nil, err
	}
	return map[string]string{"Authorization": "Bearer " + tok}, nil
}
