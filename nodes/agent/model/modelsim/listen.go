package modelsim

import (
	"net"
	"net/http"
	"net/http/httptest"
)

// Listen starts a server as New does, on addr (host:port; port 0 takes a free one) rather than
// a free port of 127.0.0.1: `corral sim model` serves a script where a node's OPENAI_BASE_URL
// points.
func Listen(addr string, script ...Turn) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := newServer(script)
	s.hs = &httptest.Server{Listener: ln, Config: &http.Server{Handler: s.handler()}}
	s.hs.Start()
	return s, nil
}

// Beyond makes every request past the end of the script get f's turn (n: the request's number,
// counting from 1), instead of a 500 that names modelsim. It returns s.
func (s *Server) Beyond(f func(req Request, n int) Turn) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.beyond = f
	return s
}

// handler routes the API's two endpoints.
func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.listModels)
	return mux
}
