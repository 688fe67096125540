package broker

// A hand-written JSON codec for TaskRequest and TaskResult, the two messages every tool call
// sends and receives (issue 16: encoding/json costs several µs of a ~100 µs call). Encoding
// writes exactly the bytes json.Marshal writes and hands what it cannot be sure of (errors,
// odd raw JSON, a busy answer's lease) to json.Marshal. Decoding takes a strict fast path (the
// keys as the tags spell them, in any order, escapes, whitespace and nulls) and hands anything
// else (unknown, duplicate or differently cased keys, type mismatches, invalid input) to
// json.Unmarshal. So both agree with encoding/json by construction; FuzzTaskRequestCodec and
// FuzzTaskResultCodec check it. Don't give either type a MarshalJSON calling AppendJSON: the
// fallback would recurse.

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// AppendJSON appends r encoded exactly as json.Marshal encodes it.
func (r *TaskRequest) AppendJSON(b []byte) ([]byte, error) {
	e := wireEncoder{b: slices.Grow(b, 256+len(r.Args)), ok: true} // room for most: one allocation
	e.int(`{"v":`, int64(r.V))
	e.str(`,"id":`, r.ID)
	e.str(`,"serial":`, r.Serial)
	e.str(`,"tool":`, r.Tool)
	if len(r.Args) > 0 {
		e.raw(`,"args":`, r.Args)
	}
	if r.Lease != "" {
		e.str(`,"lease":`, r.Lease)
	}
	e.holder(r.Holder)
	if r.TimeoutMS != 0 {
		e.int(`,"timeout_ms":`, r.TimeoutMS)
	}
	if r.WaitMS != 0 {
		e.int(`,"wait_ms":`, r.WaitMS)
	}
	if r.Progress {
		e.b = append(e.b, `,"progress":true`...)
	}
	if r.Share != (Share{}) { // omitzero: == as reflect.Value.IsZero, so a weight of -0 is zero
		e.share(r.Share)
	}
	if r.Probe != "" {
		e.str(`,"probe":`, r.Probe)
	}
	return e.done(b, r)
}

// AppendJSON appends r encoded exactly as json.Marshal encodes it.
func (r *TaskResult) AppendJSON(b []byte) ([]byte, error) {
	if r.Lease != nil { // busy refusals only: rare, and a lease is deep
		return marshalInto(b, r)
	}
	e := wireEncoder{b: slices.Grow(b, 512+len(r.Error)+len(r.Data)+len(r.Text)+base64.StdEncoding.EncodedLen(len(r.Image))), ok: true}
	e.int(`{"v":`, int64(r.V))
	e.str(`,"id":`, r.ID)
	e.str(`,"serial":`, r.Serial)
	e.str(`,"node":`, r.Node)
	e.str(`,"tool":`, r.Tool)
	e.holder(r.Holder)
	e.str(`,"outcome":`, r.Outcome)
	if r.Code != "" {
		e.str(`,"code":`, r.Code)
	}
	if r.Error != "" {
		e.str(`,"error":`, r.Error)
	}
	if len(r.Data) > 0 {
		e.raw(`,"data":`, r.Data)
	}
	if r.Text != "" {
		e.str(`,"text":`, r.Text)
	}
	if len(r.Image) > 0 {
		e.b = append(e.b, `,"image":"`...)
		e.b = base64.StdEncoding.AppendEncode(e.b, r.Image)
		e.b = append(e.b, '"')
	}
	if r.ImageType != "" {
		e.str(`,"image_type":`, r.ImageType)
	}
	if r.LeaseEnded != nil {
		e.leaseEnded(r.LeaseEnded)
	}
	if r.QueuePos != 0 {
		e.int(`,"queue_pos":`, int64(r.QueuePos))
	}
	e.time(`,"submitted":`, r.Submitted)
	if !r.Started.IsZero() {
		e.time(`,"started":`, r.Started)
	}
	e.time(`,"finished":`, r.Finished)
	if r.AbortedBy != "" {
		e.str(`,"aborted_by":`, r.AbortedBy)
	}
	if r.LeaseEpoch != 0 {
		e.b = append(e.b, `,"lease_epoch":`...)
		e.b = strconv.AppendUint(e.b, r.LeaseEpoch, 10)
	}
	if r.OwnSetup {
		e.b = append(e.b, `,"own_setup":true`...)
	}
	return e.done(b, r)
}

// DecodeTaskRequest decodes data into *r exactly as json.Unmarshal(data, r) would.
func DecodeTaskRequest(data []byte, r *TaskRequest) error {
	if decodeTaskRequest(data, r) {
		return nil
	}
	return json.Unmarshal(data, r)
}

// DecodeTaskResult decodes data into *r exactly as json.Unmarshal(data, r) would.
func DecodeTaskResult(data []byte, r *TaskResult) error {
	if decodeTaskResult(data, r) {
		return nil
	}
	return json.Unmarshal(data, r)
}

// decodeTaskRequest is the fast path of DecodeTaskRequest: false when it leaves data to
// json.Unmarshal. Like json.Unmarshal it merges into *r; it writes *r only on success.
func decodeTaskRequest(data []byte, r *TaskRequest) bool {
	d, t, seen := wireDecoder{data: data}, *r, uint32(0)
	for more := d.first(); more; more = d.next() {
		ok := false
		switch string(d.key) {
		case "v":
			ok = unseen(&seen, 0) && decodeInt(&d, &t.V)
		case "id":
			ok = unseen(&seen, 1) && d.str(&t.ID)
		case "serial":
			ok = unseen(&seen, 2) && d.str(&t.Serial)
		case "tool":
			ok = unseen(&seen, 3) && d.str(&t.Tool)
		case "args":
			ok = unseen(&seen, 4) && d.raw(&t.Args)
		case "lease":
			ok = unseen(&seen, 5) && d.str(&t.Lease)
		case "holder":
			ok = unseen(&seen, 6) && d.holder(&t.Holder)
		case "timeout_ms":
			ok = unseen(&seen, 7) && decodeInt(&d, &t.TimeoutMS)
		case "wait_ms":
			ok = unseen(&seen, 8) && decodeInt(&d, &t.WaitMS)
		case "progress":
			ok = unseen(&seen, 9) && d.bool(&t.Progress)
		case "share":
			ok = unseen(&seen, 10) && d.share(&t.Share)
		case "probe":
			ok = unseen(&seen, 11) && d.str(&t.Probe)
		}
		if !ok {
			return false
		}
	}
	if d.bad || !d.end() {
		return false
	}
	*r = t
	return true
}

// decodeTaskResult is the fast path of DecodeTaskResult, as decodeTaskRequest.
func decodeTaskResult(data []byte, r *TaskResult) bool {
	d, t, seen := wireDecoder{data: data}, *r, uint32(0)
	for more := d.first(); more; more = d.next() {
		ok := false
		switch string(d.key) {
		case "v":
			ok = unseen(&seen, 0) && decodeInt(&d, &t.V)
		case "id":
			ok = unseen(&seen, 1) && d.str(&t.ID)
		case "serial":
			ok = unseen(&seen, 2) && d.str(&t.Serial)
		case "node":
			ok = unseen(&seen, 3) && d.str(&t.Node)
		case "tool":
			ok = unseen(&seen, 4) && d.str(&t.Tool)
		case "holder":
			ok = unseen(&seen, 5) && d.holder(&t.Holder)
		case "outcome":
			ok = unseen(&seen, 6) && d.str(&t.Outcome)
		case "code":
			ok = unseen(&seen, 7) && d.str(&t.Code)
		case "error":
			ok = unseen(&seen, 8) && d.str(&t.Error)
		case "data":
			ok = unseen(&seen, 9) && d.raw(&t.Data)
		case "text":
			ok = unseen(&seen, 10) && d.str(&t.Text)
		case "image":
			ok = unseen(&seen, 11) && d.bytes(&t.Image)
		case "image_type":
			ok = unseen(&seen, 12) && d.str(&t.ImageType)
		case "lease": // a lease object is left to json.Unmarshal
			if ok = unseen(&seen, 13) && d.lit("null"); ok {
				t.Lease = nil
			}
		case "queue_pos":
			ok = unseen(&seen, 14) && decodeInt(&d, &t.QueuePos)
		case "submitted":
			ok = unseen(&seen, 15) && d.time(&t.Submitted)
		case "started":
			ok = unseen(&seen, 16) && d.time(&t.Started)
		case "finished":
			ok = unseen(&seen, 17) && d.time(&t.Finished)
		case "aborted_by":
			ok = unseen(&seen, 18) && d.str(&t.AbortedBy)
		case "lease_epoch":
			ok = unseen(&seen, 19) && d.uint(&t.LeaseEpoch)
		case "own_setup":
			ok = unseen(&seen, 20) && d.bool(&t.OwnSetup)
		case "lease_ended":
			ok = unseen(&seen, 21) && d.leaseEnded(&t.LeaseEnded)
		}
		if !ok {
			return false
		}
	}
	if d.bad || !d.end() {
		return false
	}
	*r = t
	return true
}

// unseen marks a key seen, and tells whether it was not: json.Unmarshal takes duplicate keys,
// the fast path leaves them to it.
func unseen(seen *uint32, bit uint) bool {
	if *seen&(1<<bit) != 0 {
		return false
	}
	*seen |= 1 << bit
	return true
}

// wireEncoder appends JSON as json.Marshal writes it. ok turns false on a value it leaves to
// json.Marshal: one that is an error (so the error is json.Marshal's), or raw JSON it cannot
// vouch for.
type wireEncoder struct {
	b  []byte
	ok bool
}

// done closes the object, or encodes v with json.Marshal after b when the fast path gave up.
func (e *wireEncoder) done(b []byte, v any) ([]byte, error) {
	if !e.ok {
		return marshalInto(b, v)
	}
	return append(e.b, '}'), nil
}

func marshalInto(b []byte, v any) ([]byte, error) {
	out, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, out...), nil
}

func (e *wireEncoder) int(key string, v int64) {
	e.b = append(e.b, key...)
	e.b = strconv.AppendInt(e.b, v, 10)
}

func (e *wireEncoder) str(key, s string) {
	e.b = append(e.b, key...)
	e.b = appendString(e.b, s)
}

func (e *wireEncoder) holder(h Holder) {
	e.str(`,"holder":{"principal":`, h.Principal)
	if h.Client != "" {
		e.str(`,"client":`, h.Client)
	}
	if h.Session != "" {
		e.str(`,"session":`, h.Session)
	}
	e.b = append(e.b, '}')
}

func (e *wireEncoder) share(s Share) {
	e.b = append(e.b, `,"share":{`...)
	if s.Weight != 0 {
		if math.IsNaN(s.Weight) || math.IsInf(s.Weight, 0) {
			e.ok = false // json.Marshal's error
		}
		e.b = append(e.b, `"weight":`...)
		e.b = appendFloat(e.b, s.Weight)
		if s.MaxQueued != 0 {
			e.b = append(e.b, ',')
		}
	}
	if s.MaxQueued != 0 {
		e.int(`"max_queued":`, int64(s.MaxQueued))
	}
	e.b = append(e.b, '}')
}

// leaseEnded writes a stale_lease refusal's account of the lease.
func (e *wireEncoder) leaseEnded(l *LeaseEnded) {
	e.str(`,"lease_ended":{"what":`, l.What)
	if l.Reason != "" {
		e.str(`,"reason":`, l.Reason)
	}
	if !l.At.IsZero() {
		e.time(`,"at":`, l.At)
	}
	if l.Now != "" {
		e.str(`,"now":`, l.Now)
	}
	e.b = append(e.b, '}')
}

// time writes t in RFC 3339 as encoding/json does, leaving it what it refuses (a year outside
// 0–9999, a zone offset of a day or more) to say why, with encoding/json's own test.
func (e *wireEncoder) time(key string, t time.Time) {
	e.b = append(e.b, key...)
	e.b = append(e.b, '"')
	n := len(e.b)
	e.b = t.AppendFormat(e.b, time.RFC3339Nano)
	e.ok = e.ok && marshalsTime(e.b[n:])
	e.b = append(e.b, '"')
}

// marshalsTime tells whether encoding/json takes a time formatted as s: its test is a year of
// four digits and a zone offset under a day.
func marshalsTime(s []byte) bool {
	if s[4] != '-' {
		return false
	}
	if s[len(s)-1] == 'Z' {
		return true
	}
	zone := s[len(s)-6:] // +07:00
	return (zone[0] == '+' || zone[0] == '-') && (zone[1]-'0')*10+zone[2]-'0' < 24
}

// raw writes a RawMessage as json.Marshal does: validated, without insignificant whitespace,
// and with <, >, & and U+2028/U+2029 escaped in its strings (other escapes stay as they are).
func (e *wireEncoder) raw(key string, m json.RawMessage) {
	e.b = append(e.b, key...)
	d := wireDecoder{data: m}
	d.ws()
	if !d.skip() || !d.end() {
		e.ok = false // invalid (json.Marshal's error), or too deep or odd to vouch for
		return
	}
	if !d.reformat {
		e.b = append(e.b, m...)
		return
	}
	inString := false
	for i := 0; i < len(m); i++ {
		switch c := m[i]; {
		case inString && c == '\\':
			e.b = append(e.b, c, m[i+1])
			i++
		case c == '"':
			inString = !inString
			e.b = append(e.b, c)
		case !inString && isJSONSpace(c):
		case inString && (c == '<' || c == '>' || c == '&'):
			e.b = append(e.b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		case inString && c == 0xE2 && m[i+1] == 0x80 && m[i+2]&^1 == 0xA8: // U+2028, U+2029
			e.b = append(e.b, '\\', 'u', '2', '0', '2', hexDigits[m[i+2]&0xf])
			i += 2
		default:
			e.b = append(e.b, c)
		}
	}
}

const hexDigits = "0123456789abcdef"

// plainByte marks the bytes that stand for themselves in a JSON string, in input and in
// json.Marshal's output: printable ASCII but ", \ and the <, >, & json.Marshal escapes. A
// table, because string bytes are most of what both paths look at.
var plainByte = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = !strings.ContainsRune(`"\<>&`, c)
	}
	return t
}()

// appendString quotes s as json.Marshal does: HTML characters and U+2028/U+2029 escaped,
// \b \f \n \r \t short, other controls as \u00XX, invalid UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plainByte[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendFloat formats f as encoding/json does: like ES6, 'e' only for tiny and huge values,
// with e-07 shortened to e-7.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// maxRawDepth bounds the nesting of raw JSON the fast paths read, far below encoding/json's.
const maxRawDepth = 512

// wireDecoder reads JSON from data at i. Every method returns false, instead of an error, on
// input it leaves to encoding/json.
type wireDecoder struct {
	data []byte
	i    int
	// reformat: whitespace between tokens, or a string with a character json.Marshal
	// escapes, so raw JSON is not in the form json.Marshal writes.
	reformat  bool
	unescaped []byte          // the value of the last string read with escapes
	strs      strings.Builder // the bytes of the strings kept, see keep
	key       []byte          // the key of the member being read, see first
	bad       bool            // a fault in an object, see first
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (d *wireDecoder) ws() {
	if d.i < len(d.data) && d.data[d.i] > ' ' {
		return // the usual case: no whitespace
	}
	start := d.i
	for d.i < len(d.data) && isJSONSpace(d.data[d.i]) {
		d.i++
	}
	if d.i != start {
		d.reformat = true
	}
}

// end says whether only whitespace follows.
func (d *wireDecoder) end() bool {
	d.ws()
	return d.i == len(d.data)
}

func (d *wireDecoder) eat(c byte) bool {
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *wireDecoder) lit(s string) bool {
	if len(d.data)-d.i >= len(s) && string(d.data[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

// first reads the opening brace of an object and tells whether a member follows; next reads
// what follows a member's value and tells whether another member does. Both read its key
// (into d.key, until the next string) and colon; a fault ends the loop with d.bad set. A loop
// rather than a callback per member, as this is the decoder's hottest path:
//
//	for more := d.first(); more; more = d.next() { switch string(d.key) { … } }
func (d *wireDecoder) first() bool {
	d.ws()
	if !d.eat('{') {
		d.bad = true
		return false
	}
	d.ws()
	return !d.eat('}') && d.member()
}

func (d *wireDecoder) next() bool {
	d.ws()
	if d.eat(',') {
		d.ws()
		return d.member()
	}
	d.bad = d.bad || !d.eat('}')
	return false
}

func (d *wireDecoder) member() bool {
	key, ok := d.string()
	if ok && d.i < len(d.data) && d.data[d.i] == ':' { // the usual: no whitespace
		d.i++
	} else if d.ws(); !ok || !d.eat(':') {
		d.bad = true
		return false
	}
	d.ws()
	d.key = key
	return true
}

// skip reads one value of any kind, checking it as encoding/json would. It loops rather than
// recurses, with a bit per open container: 1 for an object, 0 for an array.
func (d *wireDecoder) skip() bool {
	var objects [maxRawDepth / 64]uint64
	depth := 0
	for {
		if d.i >= len(d.data) {
			return false
		}
		switch c := d.data[d.i]; c {
		case '{', '[':
			if depth == maxRawDepth {
				return false
			}
			d.i++
			d.ws()
			if c == '{' {
				objects[depth/64] |= 1 << (depth % 64)
			} else {
				objects[depth/64] &^= 1 << (depth % 64)
			}
			depth++
			if d.eat(c + 2) { // '}' and ']' follow '{' and '[' by 2
				depth--
				break
			}
			if c == '{' && !d.member() {
				return false
			}
			continue
		case '"':
			if _, ok := d.scanString(); !ok {
				return false
			}
		case 't':
			if !d.lit("true") {
				return false
			}
		case 'f':
			if !d.lit("false") {
				return false
			}
		case 'n':
			if !d.lit("null") {
				return false
			}
		default:
			if !d.number() {
				return false
			}
		}
		// After a value: close the containers that end here, then on to the next value.
		for {
			if depth == 0 {
				return true
			}
			d.ws()
			object := objects[(depth-1)/64]>>((depth-1)%64)&1 == 1
			if d.eat(',') {
				d.ws()
				if object && !d.member() {
					return false
				}
				break
			}
			if object && !d.eat('}') || !object && !d.eat(']') {
				return false
			}
			depth--
		}
	}
}

func (d *wireDecoder) digits() bool {
	start := d.i
	for d.i < len(d.data) && '0' <= d.data[d.i] && d.data[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}

// number reads a number as RFC 8259 spells it.
func (d *wireDecoder) number() bool {
	d.eat('-')
	if !d.eat('0') && !d.digits() { // 0 or 1-9…: a digit after a leading 0 fails as a delimiter
		return false
	}
	if d.eat('.') && !d.digits() {
		return false
	}
	if d.eat('e') || d.eat('E') {
		_ = d.eat('+') || d.eat('-')
		return d.digits()
	}
	return true
}

// integer reads an integer of up to 18 digits (wider ones and fractions go to encoding/json).
func (d *wireDecoder) integer() (v int64, negative, ok bool) {
	negative = d.eat('-')
	start := d.i
	for d.i < len(d.data) && '0' <= d.data[d.i] && d.data[d.i] <= '9' {
		v = v*10 + int64(d.data[d.i]-'0')
		d.i++
	}
	if n := d.i - start; n == 0 || n > 18 || n > 1 && d.data[start] == '0' {
		return 0, false, false
	}
	if negative {
		v = -v
	}
	return v, negative, true
}

// decodeInt reads an integer or null (which leaves *p as it is, as json.Unmarshal does).
func decodeInt[T int | int64](d *wireDecoder, p *T) bool {
	if d.lit("null") {
		return true
	}
	v, _, ok := d.integer()
	if !ok || int64(T(v)) != v { // T(v) overflows int on 32-bit platforms
		return false
	}
	*p = T(v)
	return true
}

func (d *wireDecoder) uint(p *uint64) bool {
	if d.lit("null") {
		return true
	}
	v, negative, ok := d.integer()
	if !ok || negative {
		return false
	}
	*p = uint64(v)
	return true
}

func (d *wireDecoder) float(p *float64) bool {
	if d.lit("null") {
		return true
	}
	start := d.i
	if !d.number() {
		return false
	}
	f, err := strconv.ParseFloat(string(d.data[start:d.i]), 64)
	if err != nil { // out of range: json.Unmarshal's error
		return false
	}
	*p = f
	return true
}

func (d *wireDecoder) bool(p *bool) bool {
	switch {
	case d.lit("true"):
		*p = true
	case d.lit("false"):
		*p = false
	default:
		return d.lit("null")
	}
	return true
}

func (d *wireDecoder) str(p *string) bool {
	if d.lit("null") {
		return true
	}
	s, ok := d.string()
	if ok {
		*p = d.keep(s)
	}
	return ok
}

// keep returns s as a string. Short strings share 256-byte chunks, so that the strings of a
// message cost about one allocation rather than one each (a decode's largest cost after
// parsing): a strings.Builder never changes bytes it has handed out, and a full one is
// replaced, not grown, so the strings taken from it stay valid.
func (d *wireDecoder) keep(s []byte) string {
	const chunk = 256
	if len(s) > chunk/4 {
		return string(s)
	}
	if d.strs.Cap()-d.strs.Len() < len(s) {
		d.strs = strings.Builder{}
		d.strs.Grow(chunk)
	}
	n := d.strs.Len()
	d.strs.Write(s)
	return d.strs.String()[n:]
}

// raw keeps the value's exact bytes, null included, as json.RawMessage's UnmarshalJSON.
func (d *wireDecoder) raw(p *json.RawMessage) bool {
	start := d.i
	if !d.skip() {
		return false
	}
	*p = append((*p)[:0], d.data[start:d.i]...)
	return true
}

// bytes reads base64 as encoding/json does for a []byte; null makes it nil, and an array of
// numbers (which encoding/json also takes) is left to it.
func (d *wireDecoder) bytes(p *[]byte) bool {
	if d.lit("null") {
		*p = nil
		return true
	}
	s, ok := d.string()
	if !ok {
		return false
	}
	b, err := base64.StdEncoding.AppendDecode((*p)[:0], s)
	if err != nil {
		return false
	}
	if b == nil {
		b = []byte{}
	}
	*p = b
	return true
}

// time reads an RFC 3339 string with time.Time's UnmarshalText, as encoding/json does.
func (d *wireDecoder) time(p *time.Time) bool {
	if d.lit("null") {
		return true
	}
	s, ok := d.string()
	if !ok {
		return false
	}
	var t time.Time
	if t.UnmarshalText(s) != nil {
		return false
	}
	*p = t
	return true
}

func (d *wireDecoder) holder(h *Holder) bool {
	if d.lit("null") {
		return true
	}
	seen := uint32(0)
	for more := d.first(); more; more = d.next() {
		ok := false
		switch string(d.key) {
		case "principal":
			ok = unseen(&seen, 0) && d.str(&h.Principal)
		case "client":
			ok = unseen(&seen, 1) && d.str(&h.Client)
		case "session":
			ok = unseen(&seen, 2) && d.str(&h.Session)
		}
		if !ok {
			return false
		}
	}
	return !d.bad
}

// leaseEnded reads a LeaseEnded as json.Unmarshal does: null makes it nil, an object merges
// into the one *p points to (a new one when nil). It writes *p only on success, and then a
// copy, so what it leaves to json.Unmarshal finds *p as it was.
func (d *wireDecoder) leaseEnded(p **LeaseEnded) bool {
	if d.lit("null") {
		*p = nil
		return true
	}
	var l LeaseEnded
	if *p != nil {
		l = **p
	}
	seen := uint32(0)
	for more := d.first(); more; more = d.next() {
		ok := false
		switch string(d.key) {
		case "what":
			ok = unseen(&seen, 0) && d.str(&l.What)
		case "reason":
			ok = unseen(&seen, 1) && d.str(&l.Reason)
		case "at":
			ok = unseen(&seen, 2) && d.time(&l.At)
		case "now":
			ok = unseen(&seen, 3) && d.str(&l.Now)
		}
		if !ok {
			return false
		}
	}
	if d.bad {
		return false
	}
	*p = &l
	return true
}

func (d *wireDecoder) share(s *Share) bool {
	if d.lit("null") {
		return true
	}
	seen := uint32(0)
	for more := d.first(); more; more = d.next() {
		ok := false
		switch string(d.key) {
		case "weight":
			ok = unseen(&seen, 0) && d.float(&s.Weight)
		case "max_queued":
			ok = unseen(&seen, 1) && decodeInt(d, &s.MaxQueued)
		}
		if !ok {
			return false
		}
	}
	return !d.bad
}

// string reads a string and returns its value: a slice of data, or when it has escapes of a
// buffer the next string reuses.
func (d *wireDecoder) string() ([]byte, bool) {
	start := d.i + 1
	if data := d.data; d.i < len(data) && data[d.i] == '"' {
		i := start
		for i < len(data) && plainByte[data[i]] { // the usual string, without more calls
			i++
		}
		if i < len(data) && data[i] == '"' {
			d.i = i + 1
			return data[start:i], true
		}
	}
	escaped, ok := d.scanString()
	if !ok {
		return nil, false
	}
	s := d.data[start : d.i-1]
	if escaped {
		d.unescaped = unescape(d.unescaped[:0], s)
		s = d.unescaped
	}
	return s, true
}

// scanString checks a string, leaving json.Unmarshal what it would repair (invalid UTF-8,
// lone surrogates).
func (d *wireDecoder) scanString() (escaped, ok bool) {
	if !d.eat('"') {
		return false, false
	}
	for {
		i, data := d.i, d.data
		for i < len(data) && plainByte[data[i]] { // the common bytes, in a loop kept tight
			i++
		}
		if d.i = i; i == len(data) {
			return false, false
		}
		switch c := data[i]; {
		case c == '"':
			d.i++
			return escaped, true
		case c < ' ':
			return false, false
		case c == '\\':
			if !d.escape() {
				return false, false
			}
			escaped = true
		case c < utf8.RuneSelf: // < > &
			d.reformat = true
			d.i++
		default:
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				return false, false
			}
			if r == '\u2028' || r == '\u2029' {
				d.reformat = true
			}
			d.i += n
		}
	}
}

// escape checks one escape sequence; a \u surrogate must be a high one followed by a low one.
func (d *wireDecoder) escape() bool {
	if d.i+1 >= len(d.data) {
		return false
	}
	switch d.data[d.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		d.i += 2
		return true
	case 'u':
		r, ok := hex4(d.data[d.i+2:])
		d.i += 6
		if !ok || !utf16.IsSurrogate(r) {
			return ok
		}
		if r >= 0xDC00 || !d.lit(`\u`) {
			return false
		}
		low, ok := hex4(d.data[d.i:])
		d.i += 4
		return ok && 0xDC00 <= low && low <= 0xDFFF
	}
	return false
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// unescape appends s, a string scanString accepted, with its escapes decoded.
func unescape(out, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, _ := hex4(s[i+1:])
			i += 4
			if utf16.IsSurrogate(r) {
				low, _ := hex4(s[i+3:])
				r = utf16.DecodeRune(r, low)
				i += 6
			}
			out = utf8.AppendRune(out, r)
		default: // " \ /
			out = append(out, c)
		}
	}
	return out
}
