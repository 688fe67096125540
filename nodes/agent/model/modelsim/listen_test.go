package modelsim

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Listen serves on the address given; Beyond answers past the script, numbering the request.
func TestListenAndBeyond(t *testing.T) {
	s, err := Listen("127.0.0.1:0", Say("hello"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.BaseURL(), "http://127.0.0.1:") || strings.HasSuffix(s.URL(), ":0") {
		t.Errorf("base URL %s", s.BaseURL())
	}
	if _, err := Listen(strings.TrimPrefix(s.URL(), "http://")); err == nil {
		t.Error("a second server listened on the same address")
	}
	if _, body := post(t, t.Context(), s, "", hello); !strings.Contains(body, `"content":"hello"`) {
		t.Errorf("answer = %s", body)
	}
	if status, body := post(t, t.Context(), s, "", hello); status != http.StatusInternalServerError || !strings.Contains(body, "no scripted turn left for request 2") {
		t.Errorf("past the script without Beyond: %d %s", status, body)
	}
	s.Beyond(func(_ Request, n int) Turn {
		return Fail(http.StatusServiceUnavailable, "over at request "+strconv.Itoa(n))
	})
	if status, body := post(t, t.Context(), s, "", hello); status != http.StatusServiceUnavailable || !strings.Contains(body, "over at request 3") {
		t.Errorf("past the script with Beyond: %d %s", status, body)
	}
}
