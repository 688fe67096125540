package nodes

import (
	"log/slog"
	"maps"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/corral-farm/corral/broker"
)

// A device's registry entry must fit its bucket: corral_devices takes values of at most 64KiB
// (broker/kvconfig.go), and an entry over it is refused at every retry, so its device is never
// seen. The node's own part of an entry is small (states, ids, a queue of at most
// broker.MaxQueueShown: some 4KiB); what a driver gives is bounded by nobody: its device's
// description (model, tags, extras) and the reasons of its troubles (a health check's error,
// an unplug's, a halt's), which may carry a tool's whole output. Those are cut where they enter
// the node, by the bytes they take in JSON (escapes take up to six a byte), ending with "…" at a
// character's boundary. In all they take at most some 38KiB: an entry fits with room to spare
// (TestWorstEntryFitsTheRegistry). The serial is not cut: it names the device, in keys too.
const (
	maxReasonJSON   = 4 << 10  // a reason: a few sentences, and the start of a tool's output
	maxWordJSON     = 256      // a platform, model, brand, release or SDK; a tag; an extra's key
	maxTags         = 64       // tags of a device
	maxExtraJSON    = 1 << 10  // an extra's value
	maxExtrasJSON   = 16 << 10 // the extras in all, keys and values
	ellipsis        = "…"
	ellipsisJSONLen = len(ellipsis)
)

// entryBounds cuts what drivers give to fit registry entries, and says once for each device
// and field that it did (the sizes only: a driver's text may hold anything).
type entryBounds struct {
	log *slog.Logger

	mu   sync.Mutex
	told map[string]bool // serial + "\x00" + field
}

func newEntryBounds(log *slog.Logger) *entryBounds {
	return &entryBounds{log: log, told: map[string]bool{}}
}

// tell says that field of serial's entry was cut, with args (sizes, never the text), once. A
// nil b tells nobody.
func (b *entryBounds) tell(serial, field string, args ...any) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	key := serial + "\x00" + field
	if b.told[key] {
		return
	}
	b.told[key] = true
	b.log.Warn("a driver's text does not fit its device's registry entry: cut, there and in the node's events, ending with … "+
		"(said once a device and field)", append([]any{"serial", serial, "field", field}, args...)...)
}

// text is s, cut to limit JSON bytes; field names it when it is cut.
func (b *entryBounds) text(serial, field, s string, limit int) string {
	out, cut := cutJSON(s, limit)
	if cut {
		b.tell(serial, field, "bytes", len(s), "kept_json_bytes", limit)
	}
	return out
}

// reasonText is a reason of serial's, cut to fit.
func (b *entryBounds) reasonText(serial, reason string) string {
	return b.text(serial, "reason", reason, maxReasonJSON)
}

// reason is err, a device's trouble, its text cut to fit; errors.Is and As still see err.
func (b *entryBounds) reason(serial string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	out, cut := cutJSON(msg, maxReasonJSON)
	if !cut {
		return err
	}
	b.tell(serial, "reason", "bytes", len(msg), "kept_json_bytes", maxReasonJSON)
	return cutError{err: err, msg: out}
}

// cutError is an error whose text was cut.
type cutError struct {
	err error
	msg string
}

func (e cutError) Error() string { return e.msg }
func (e cutError) Unwrap() error { return e.err }

// info is e with what its driver described cut to fit. The driver's tags and extras are
// copied when cut, not changed.
func (b *entryBounds) info(e broker.DeviceEntry) broker.DeviceEntry {
	word := func(field, s string) string { return b.text(e.Serial, field, s, maxWordJSON) }
	e.Platform, e.Model, e.Brand = word("platform", e.Platform), word("model", e.Model), word("brand", e.Brand)
	e.Release, e.SDK = word("release", e.Release), word("sdk", e.SDK)
	e.Tags = b.tags(e.Serial, e.Tags)
	e.Extra = b.extras(e.Serial, e.Extra)
	return e
}

// tags are at most maxTags, each at most maxWordJSON.
func (b *entryBounds) tags(serial string, tags []string) []string {
	fits := len(tags) <= maxTags
	for _, t := range tags {
		fits = fits && 2+6*len(t) <= maxWordJSON
	}
	if fits {
		return tags
	}
	out := make([]string, 0, min(len(tags), maxTags))
	for _, t := range tags[:min(len(tags), maxTags)] {
		out = append(out, b.text(serial, "tag", t, maxWordJSON))
	}
	if len(tags) > maxTags {
		b.tell(serial, "tags", "tags", len(tags), "kept", maxTags)
	}
	return out
}

// extras keep, in the order of their keys, what fits maxExtrasJSON, each key and value cut to
// its bound; the rest is left out.
func (b *entryBounds) extras(serial string, extra map[string]string) map[string]string {
	n, fits := 2, true
	for k, v := range extra {
		n += jsonLen(k) + jsonLen(v) + 2 // the colon, the comma
		fits = fits && jsonLen(k) <= maxWordJSON && jsonLen(v) <= maxExtraJSON
	}
	if fits && n <= maxExtrasJSON {
		return extra
	}
	out, n := map[string]string{}, 2
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		key, _ := cutJSON(k, maxWordJSON)
		v, _ := cutJSON(extra[k], maxExtraJSON)
		if _, dup := out[key]; dup { // two long keys alike to the cut
			continue
		}
		size := jsonLen(key) + jsonLen(v) + 2
		if n+size > maxExtrasJSON {
			break
		}
		out[key], n = v, n+size
	}
	b.tell(serial, "extras", "extras", len(extra), "kept", len(out), "kept_json_bytes", maxExtrasJSON)
	return out
}

// cutJSON is s cut so that it takes at most limit bytes as a JSON string (quotes included),
// ending with "…", and whether it was cut. The cut falls between characters.
func cutJSON(s string, limit int) (string, bool) {
	if 2+6*len(s) <= limit { // fits, whatever it escapes
		return s, false
	}
	n, end := 2, -1
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		w := runeJSONLen(r, size)
		if end < 0 && n+w+ellipsisJSONLen > limit {
			end = i // s[:end] and the ellipsis fit
		}
		if n += w; n > limit {
			return s[:end] + ellipsis, true
		}
		i += size
	}
	return s, false
}

// jsonLen is how many bytes s takes as a JSON string, quotes included, at most.
func jsonLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runeJSONLen(r, size)
		i += size
	}
	return n
}

// runeJSONLen is how many bytes r, size bytes of a string, takes in JSON as encoding/json
// writes it, at most: 6 for an escape \uXXXX (a control character, <, >, &, U+2028, U+2029),
// and for an invalid byte (U+FFFD, escaped or not).
func runeJSONLen(r rune, size int) int {
	switch {
	case r == utf8.RuneError && size == 1:
		return 6
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
		return 6
	}
	return size
}
