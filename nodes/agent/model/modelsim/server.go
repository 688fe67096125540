package modelsim

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"
)

// maxBody bounds a request body: a conversation with several screenshots fits easily.
const maxBody = 64 << 20

// Server is a scripted model server on 127.0.0.1. Its methods are safe for concurrent use.
type Server struct {
	hs        *httptest.Server
	closing   chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	script   []Turn
	next     int
	requests []Request
	key      string
	models   []string
	beyond   func(Request, int) Turn // answers past the script (Beyond); nil: a 500
}

// New starts a server that answers chat requests with script, one turn per request. A request
// beyond the script gets a 500 that says so, or Beyond's turn.
func New(script ...Turn) *Server {
	s := newServer(script)
	s.hs = httptest.NewServer(s.handler())
	return s
}

func newServer(script []Turn) *Server {
	return &Server{closing: make(chan struct{}), script: script}
}

// URL is the server's root, http://host:port of its listener (127.0.0.1 unless Listen said otherwise).
func (s *Server) URL() string { return s.hs.URL }

// BaseURL is the API root a client is configured with: URL()+"/v1".
func (s *Server) BaseURL() string { return s.hs.URL + "/v1" }

// Close cuts short any delayed answer and stops the server.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closing) })
	s.hs.Close()
}

// Script appends turns to the script.
func (s *Server) Script(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, turns...)
}

// Left is how many scripted turns no request has taken yet.
func (s *Server) Left() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script) - s.next
}

// RequireKey makes every request without "Authorization: Bearer key" get a 401 (whose
// message echoes the key that was sent, as careless servers do). It returns s.
func (s *Server) RequireKey(key string) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
	return s
}

// Models makes the server know only these models: a request for another gets a 404 as
// OpenAI answers it, and GET /v1/models lists them. Without it every model is known and
// the list is "modelsim". It returns s.
func (s *Server) Models(ids ...string) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = ids
	return s
}

// Requests returns every chat request received so far, in order, including refused ones.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "modelsim: reading the body: "+err.Error())
		return
	}
	req, decodeErr := decodeRequest(body)
	req.Authorization, req.Body, req.Received = r.Header.Get("Authorization"), body, time.Now()

	s.mu.Lock()
	s.requests = append(s.requests, req)
	status, msg := s.refuse(req, decodeErr)
	var turn Turn
	if status == 0 {
		if s.next < len(s.script) {
			turn = s.script[s.next]
			s.next++
		} else if s.beyond != nil {
			beyond, n := s.beyond, len(s.requests)
			turn = Turn{Reply: func(req Request) Turn { return beyond(req, n) }}
		} else {
			status, msg = http.StatusInternalServerError,
				fmt.Sprintf("modelsim: no scripted turn left for request %d (the script has %d turns)", len(s.requests), len(s.script))
		}
	}
	s.mu.Unlock()
	if status != 0 {
		writeError(w, status, msg)
		return
	}
	if turn.Reply != nil {
		turn = turn.Reply(req)
	}
	if s.wait(r, turn.Delay) {
		s.answer(w, req, turn)
	}
}

// refuse checks a request as a real server does before it runs the model: the key, then the
// body, then the model. The caller holds s.mu.
func (s *Server) refuse(req Request, decodeErr error) (status int, msg string) {
	switch {
	case s.key != "" && req.Authorization != "Bearer "+s.key:
		return http.StatusUnauthorized, fmt.Sprintf("Incorrect API key provided: %q.", strings.TrimPrefix(req.Authorization, "Bearer "))
	case decodeErr != nil:
		return http.StatusBadRequest, "modelsim: " + decodeErr.Error()
	case s.models != nil && !slices.Contains(s.models, req.Model):
		return http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model)
	}
	return 0, ""
}

// wait holds an answer back for d; false when the client gave up or the server is closing.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.closing:
	}
	return false
}

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	key, ids := s.key, s.models
	s.mu.Unlock()
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided.")
		return
	}
	if ids == nil {
		ids = []string{"modelsim"}
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, id := range ids {
		list.Data = append(list.Data, model{ID: id, Object: "model", Created: created, OwnedBy: "modelsim"})
	}
	writeJSON(w, http.StatusOK, list)
}
