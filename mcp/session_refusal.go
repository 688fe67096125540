package mcp

import (
	"encoding/json"
	"io"
	"net/http"
)

// refusalID is the id of the request a session refusal (404: an id not issued to the caller,
// or ended) answers, so that a client can tie the error to its request. The session check
// runs before bufferBody, so the body is read here, within the same bounds (limitBody's
// MaxBody, readDeadline's ReadTimeout). A batch, a body that is no JSON object, or an id
// that cannot be used (usableID) is answered with null.
func refusalID(r *http.Request) json.RawMessage {
	if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil
	}
	return usableID(withBody(r, body))
}
