package twin

import (
	"io"
	"net/http"
	"unicode/utf8"
)

// maxClipboard bounds what the twin's clipboard helper takes: send_to_clipboard's 10,000
// bytes, with room.
const maxClipboard = 64 << 10

// ClipboardHandler is the helper app on the twin's phone, for a rig whose driver runs in
// another process (corral sim arm): a POST's body, UTF-8 text, goes on the phone's clipboard.
// arm/rig's HTTPClipboard posts to it.
func (t *Twin) ClipboardHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST the text", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxClipboard))
		switch {
		case err != nil:
			http.Error(w, "the text is too long or was cut off", http.StatusRequestEntityTooLarge)
			return
		case !utf8.Valid(body):
			http.Error(w, "the text is not UTF-8", http.StatusBadRequest)
			return
		}
		if err := t.Phone.SetClipboard(r.Context(), string(body)); err != nil {
			http.Error(w, "the phone refused the text", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
