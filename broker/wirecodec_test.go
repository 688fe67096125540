package broker

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wireCodec is one message's pair of fast functions, so each check is written once for both.
type wireCodec[T any] struct {
	encode func(*T, []byte) ([]byte, error)
	decode func([]byte, *T) error
	fast   func([]byte, *T) bool // the fast path alone
}

var (
	requestCodec = wireCodec[TaskRequest]{(*TaskRequest).AppendJSON, DecodeTaskRequest, decodeTaskRequest}
	resultCodec  = wireCodec[TaskResult]{(*TaskResult).AppendJSON, DecodeTaskResult, decodeTaskResult}
)

// checkEncode checks AppendJSON appends what json.Marshal returns, or fails as it does.
func checkEncode[T any](t *testing.T, c wireCodec[T], v *T) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	got, err := c.encode(v, []byte("prefix"))
	if wantErr != nil {
		require.Error(t, err, "json.Marshal fails with %v", wantErr)
		require.Equal(t, wantErr.Error(), err.Error())
		require.Equal(t, "prefix", string(got))
		return
	}
	require.NoError(t, err)
	require.Equal(t, "prefix"+string(want), string(got))
}

// checkMessage checks v both ways: it encodes as json.Marshal does, and what json.Marshal
// writes, compact or indented, decodes as json.Unmarshal decodes it. It reports whether the
// compact form took the fast path.
func checkMessage[T any](t *testing.T, c wireCodec[T], v *T) (fast bool) {
	t.Helper()
	checkEncode(t, c, v)
	data, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var indented bytes.Buffer
	require.NoError(t, json.Indent(&indented, data, "", "\t"))
	checkDecode(t, c, indented.Bytes())
	return checkDecode(t, c, data)
}

// checkDecode checks the decoder agrees with json.Unmarshal into fresh values, and reports
// whether the fast path took data (it then must agree on its own).
func checkDecode[T any](t *testing.T, c wireCodec[T], data []byte) (fast bool) {
	t.Helper()
	var want, got, fastGot T
	wantErr := json.Unmarshal(data, &want)
	err := c.decode(data, &got)
	require.Equal(t, wantErr != nil, err != nil, "json.Unmarshal: %v, decode: %v", wantErr, err)
	if wantErr == nil {
		require.True(t, reflect.DeepEqual(want, got), "json.Unmarshal: %+v\ndecode: %+v", want, got)
	}
	if !c.fast(data, &fastGot) {
		return false
	}
	require.NoError(t, wantErr, "the fast path took input json.Unmarshal refuses")
	require.True(t, reflect.DeepEqual(want, fastGot), "json.Unmarshal: %+v\nfast path: %+v", want, fastGot)
	return true
}

func realisticRequest() TaskRequest {
	return TaskRequest{V: WireVersion, ID: "t_0123456789abcdef", Serial: "n1-p1", Tool: "tap",
		Args: json.RawMessage(`{"x":0.5,"y":0.25,"duration_ms":100}`), Lease: "l_9f8e7d6c5b4a",
		Holder: Holder{Principal: "alice", Client: "claude-code", Session: "0a1b2c3d4e"}, TimeoutMS: 30000, WaitMS: 5000,
		Progress: true, Share: Share{Weight: 2.5, MaxQueued: 4}, Probe: "p_0a1b2c3d4e5f6a7b"}
}

func realisticResult() TaskResult {
	at := time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)
	return TaskResult{V: WireVersion, ID: "t_0123456789abcdef", Serial: "n1-p1", Node: "n1",
		Tool: "get_screen_size", Holder: Holder{Principal: Anonymous, Client: "bench", Session: "5f6a7b8c9d"}, Outcome: OutcomeSucceeded,
		Data:      json.RawMessage(`{"width":1080,"height":2400,"message":"screen size: 1080x2400 pixels"}`),
		Text:      "screen size: 1080x2400 pixels",
		Submitted: at, Started: at.Add(120 * time.Microsecond), Finished: at.Add(2 * time.Millisecond), LeaseEpoch: 3}
}

// staleResult is a node's stale_lease refusal of a task whose lease expired.
func staleResult() *TaskResult {
	r := realisticResult()
	r.Outcome, r.Code, r.Data, r.Text, r.Started = OutcomeRefused, CodeStaleLease, nil, "", time.Time{}
	r.Error = "the lease you passed for n1-p1 expired at 2026-03-14T15:09:26Z (idle for 5m0s); n1-p1 is free now. Call acquire_device again"
	r.LeaseEnded = &LeaseEnded{What: LeaseExpired, Reason: "idle for 5m0s", At: r.Submitted.Add(-time.Minute), Now: "n1-p1 is free now"}
	return &r
}

func TestTaskRequestCodecMatchesEncodingJSON(t *testing.T) {
	edit := func(f func(r *TaskRequest)) *TaskRequest {
		r := realisticRequest()
		f(&r)
		return &r
	}
	for name, tc := range map[string]struct {
		req  *TaskRequest
		fast bool
	}{
		"zero":          {&TaskRequest{}, true},
		"realistic":     {edit(func(*TaskRequest) {}), true},
		"escapes":       {edit(func(r *TaskRequest) { r.ID = "<a href=\"x\">&\\\b\f\n\r\t\x00\x1f\x7f</a>" }), true},
		"unicode":       {edit(func(r *TaskRequest) { r.Serial = "é漢字😀\u2028\u2029\ufffd" }), true},
		"invalid utf-8": {edit(func(r *TaskRequest) { r.Tool = "a\xffb\xc3(\xed\xa0\x80z" }), true},
		"args absent":   {edit(func(r *TaskRequest) { r.Args = nil }), true},
		"args empty":    {edit(func(r *TaskRequest) { r.Args = json.RawMessage{} }), true},
		"args null":     {edit(func(r *TaskRequest) { r.Args = json.RawMessage(`null`) }), true},
		"args nested": {edit(func(r *TaskRequest) {
			r.Args = json.RawMessage(`{"a":[1,-2.5e-3,{"b":[true,false,null]}],"c":"\u00e9\ud83d\ude00\/"}`)
		}), true},
		"args spaced": {edit(func(r *TaskRequest) {
			r.Args = json.RawMessage(" {\"a\" : [ 1 ,\n\t2 ] , \"s\": \" <&> \u2028\" }\r\n")
		}), true},
		"args html escaped":    {edit(func(r *TaskRequest) { r.Args = json.RawMessage(`{"<k>":"a&b","e":"\u003c"}`) }), true},
		"args scalar":          {edit(func(r *TaskRequest) { r.Args = json.RawMessage(`-0.0E+00`) }), true},
		"args invalid":         {edit(func(r *TaskRequest) { r.Args = json.RawMessage(`{"a":}`) }), false},
		"args two values":      {edit(func(r *TaskRequest) { r.Args = json.RawMessage(`{} {}`) }), false},
		"args invalid utf-8":   {edit(func(r *TaskRequest) { r.Args = json.RawMessage("\"a\xffb\"") }), false},
		"args deep":            {edit(func(r *TaskRequest) { r.Args = json.RawMessage(strings.Repeat("[", 1200) + strings.Repeat("]", 1200)) }), false},
		"big numbers":          {edit(func(r *TaskRequest) { r.V, r.TimeoutMS, r.WaitMS = math.MaxInt, math.MaxInt64, math.MinInt64 }), false},
		"negative numbers":     {edit(func(r *TaskRequest) { r.V, r.TimeoutMS, r.WaitMS = -1, -999999999999999999, -7 }), true},
		"share weight only":    {edit(func(r *TaskRequest) { r.Share = Share{Weight: 1e-7} }), true},
		"share max only":       {edit(func(r *TaskRequest) { r.Share = Share{MaxQueued: -3} }), true},
		"share huge weight":    {edit(func(r *TaskRequest) { r.Share = Share{Weight: 1e21} }), true},
		"share tiny weight":    {edit(func(r *TaskRequest) { r.Share = Share{Weight: -5e-324} }), true},
		"share negative zero":  {edit(func(r *TaskRequest) { r.Share = Share{Weight: math.Copysign(0, -1)} }), true},
		"share NaN":            {edit(func(r *TaskRequest) { r.Share.Weight = math.NaN() }), false},
		"share infinite":       {edit(func(r *TaskRequest) { r.Share.Weight = math.Inf(-1) }), false},
		"no client, no extras": {&TaskRequest{V: 1, ID: "t", Serial: "s", Tool: "x", Holder: Holder{Principal: "p"}}, true},
	} {
		t.Run(name, func(t *testing.T) { assert.Equal(t, tc.fast, checkMessage(t, requestCodec, tc.req), "fast path taken") })
	}
}

func TestTaskResultCodecMatchesEncodingJSON(t *testing.T) {
	edit := func(f func(r *TaskResult)) *TaskResult {
		r := realisticResult()
		f(&r)
		return &r
	}
	at := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	for name, tc := range map[string]struct {
		res  *TaskResult
		fast bool
	}{
		"zero":      {&TaskResult{}, true},
		"realistic": {edit(func(*TaskResult) {}), true},
		"refused": {edit(func(r *TaskResult) {
			r.Outcome, r.Code, r.Error, r.Data, r.Text = OutcomeRefused, CodeBusy, `held by "bob" <b@x>`, nil, ""
		}), true},
		"escapes":       {edit(func(r *TaskResult) { r.Text, r.AbortedBy = "line1\nline2\t<&>\"\\", "\x01\u2028" }), true},
		"invalid utf-8": {edit(func(r *TaskResult) { r.Error = "\xff\xfe" }), true},
		"image":         {edit(func(r *TaskResult) { r.Image, r.ImageType = []byte{0xff, 0xd8, 0xff, 0, 1, 2, 3}, "image/jpeg" }), true},
		"image empty":   {edit(func(r *TaskResult) { r.Image = []byte{} }), true},
		"data null":     {edit(func(r *TaskResult) { r.Data = json.RawMessage(`null`) }), true},
		"data spaced":   {edit(func(r *TaskResult) { r.Data = json.RawMessage("{ \"a\": \"<\u2029>\" }") }), true},
		"data invalid":  {edit(func(r *TaskResult) { r.Data = json.RawMessage(`{"a":1,}`) }), false},
		"queued":        {edit(func(r *TaskResult) { r.QueuePos, r.LeaseEpoch = 7, math.MaxUint64 }), false},
		"zero times":    {edit(func(r *TaskResult) { r.Submitted, r.Started, r.Finished = time.Time{}, time.Time{}, time.Time{} }), true},
		"zoned times": {edit(func(r *TaskResult) {
			r.Submitted = at.In(time.FixedZone("IST", 5*3600+30*60))
			r.Started = at.In(time.FixedZone("", -7*3600))
			r.Finished = at.In(time.FixedZone("LMT", 561)) // seconds in the offset are dropped
		}), true},
		"local times":     {edit(func(r *TaskResult) { r.Submitted, r.Finished = time.Now(), time.Now().Local() }), true},
		"year 9999":       {edit(func(r *TaskResult) { r.Finished = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC) }), true},
		"year 10000":      {edit(func(r *TaskResult) { r.Finished = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }), false},
		"year -1":         {edit(func(r *TaskResult) { r.Started = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }), false},
		"offset 24 hours": {edit(func(r *TaskResult) { r.Submitted = at.In(time.FixedZone("", 24*3600)) }), false},
		"lease": {edit(func(r *TaskResult) {
			r.Outcome, r.Code, r.Lease = OutcomeRefused, CodeBusy, &Lease{V: 1, Serial: "s", Holder: Holder{Principal: "bob"}, QueueLen: 2, Running: &RunningTask{Tool: "tap"}}
		}), false},
		"secrets unsent": {edit(func(r *TaskResult) { r.Secrets = []string{"hunter2"} }), true},
		"own setup": {edit(func(r *TaskResult) {
			r.Outcome, r.Code, r.OwnSetup = OutcomeRefused, CodeUnsupported, true
		}), true},
		"lease ended": {staleResult(), true},
		"lease unknown": {edit(func(r *TaskResult) {
			r.Outcome, r.Code, r.LeaseEnded = OutcomeRefused, CodeStaleLease, &LeaseEnded{What: LeaseUnknown, Now: "n1-p1 is \"free\" <now>"}
		}), true},
		"lease ended empty": {edit(func(r *TaskResult) { r.LeaseEnded = &LeaseEnded{} }), true},
		"lease ended zoned": {edit(func(r *TaskResult) {
			r.LeaseEnded = &LeaseEnded{What: LeaseRevoked, At: at.In(time.FixedZone("IST", 5*3600+30*60))}
		}), true},
		"lease ended year 10000": {edit(func(r *TaskResult) {
			r.LeaseEnded = &LeaseEnded{What: LeaseExpired, At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
		}), false},
	} {
		t.Run(name, func(t *testing.T) { assert.Equal(t, tc.fast, checkMessage(t, resultCodec, tc.res), "fast path taken") })
	}
}

// decodeCase is input the encoder never writes, and whether the fast path takes it: it takes
// what it can prove it reads as json.Unmarshal does, and leaves the rest to it. The cases
// also seed the fuzz targets.
type decodeCase struct {
	data string
	fast bool
}

var requestInputs = []decodeCase{
	{`{}`, true},
	{" \t\r\n{ \"v\" : 1 , \"id\" : \"x\" }\n", true},
	{`{"v":null,"id":null,"holder":null,"args":null,"share":null,"progress":null,"timeout_ms":null}`, true},
	{`{"id":"\u0041\ud83d\ude00\n\/\"\\\b\f\r\t\u00e9","holder":{"client":"c"}}`, true},
	{`{"\u0069d":"x"}`, true}, // an escaped key is still "id"
	{`{"args":[1,{"a":"b"}],"share":{"weight":-0,"max_queued":0}}`, true},
	{`{"share":{"weight":1.5e300}}`, true},
	{`{"v":-0}`, true},
	{`{"probe":"p_x","progress":false}`, true},
	{`{"probe":null}`, true},
	{`{"probe":1}`, false},
	{`{"probe":"a","probe":"b"}`, false},
	{`{"V":1}`, false},             // json.Unmarshal folds case
	{`{"ID":"x","id":"y"}`, false}, // and takes the last of both
	{`{"id":"x","id":"y"}`, false}, // duplicates
	{`{"holder":{"principal":"a","principal":"b"}}`, false},
	{`{"secrets":["x"]}`, false}, // unknown keys are ignored by json.Unmarshal
	{`{"v":1.0}`, false},         // an error for an int
	{`{"v":1e2}`, false},
	{`{"v":9223372036854775808}`, false},
	{`{"timeout_ms":123456789012345678}`, true},
	{`{"v":2147483648}`, strconv.IntSize == 64}, // too big for a 32-bit int
	{`{"v":01}`, false},
	{`{"args":[01]}`, false},
	{`{"args":[1}}`, false},
	{`{"args":{"a":1]}`, false},
	{`{"args":[-]}`, false},
	{`{"args":[1.]}`, false},
	{`{"args":[1e]}`, false},
	{`{"args":[-0.5E+3,1e-2]}`, true},
	{`{"share":{"weight":01}}`, false},
	{`{"share":{"weight":1e400}}`, false},
	{`{"v":"1"}`, false},
	{`{"id":1}`, false},
	{`{"progress":"true"}`, false},
	{`{"id":"\ud800"}`, false}, // json.Unmarshal repairs a lone surrogate
	{`{"id":"\udc00"}`, false},
	{`{"id":"\ud800\u0041"}`, false},
	{`{"id":"\ud800\ud800"}`, false},
	{`{"id":"\uD83D\uDE00\u00E9"}`, true},
	{`{"id":"\u00g0"}`, false},
	{`{"id":"\u12"}`, false},
	{`{"id":"\x"}`, false},
	{"{\"id\":\"\xff\"}", false}, // and invalid UTF-8
	{"{\"id\":\"a\tb\"}", false}, // a raw control character is an error
	{`{"args":{"a":1,}}`, false},
	{`{"args":{:1}}`, false},
	{`{"args":[1 2]}`, false},
	{`{"args":tru}`, false},
	{`{"v":1}x`, false},
	{`{"v":1`, false},
	{`null`, false},
	{``, false},
	{`[]`, false},
}

var resultInputs = []decodeCase{
	{`{"lease":null,"image":null,"data":null,"submitted":null,"lease_epoch":null}`, true},
	{`{"image":""}`, true},
	{`{"image":"/9j/AA=="}`, true},
	{"{\"image\":\"/9j/\\r\\nAA==\"}", true}, // encoding/json skips \r and \n in base64
	{`{"image":"/9j/AA"}`, false},
	{`{"image":[1,2,3]}`, false}, // json.Unmarshal takes an array of bytes too
	{`{"lease":{"v":1}}`, false},
	{`{"submitted":"2026-03-14T15:09:26.5+05:30","finished":"2026-03-14T15:09:26Z"}`, true},
	{`{"submitted":"2026-03-14T15:09:26\u002e5Z"}`, true},
	{`{"submitted":"2026-03-14 15:09:26Z"}`, false},
	{`{"submitted":"2026-03-14T24:00:00Z"}`, false},
	{`{"submitted":1}`, false},
	{`{"lease_epoch":-1}`, false},
	{`{"lease_epoch":-0}`, false},
	{`{"data":{"nested":{"deep":[[[]]]},"s":"<\u2028>"}}`, true},
	{"{\"data\": [ 1 ,\n{ \"a\" : \"\\u003c\" } ] }", true}, // kept as it is, inner whitespace too
	{`{"holder":{},"v":1,}`, false},
	{`{"lease_ended":null}`, true},
	{`{"lease_ended":{}}`, true},
	{`{"lease_ended":{"now":"d1 is free now","at":"2026-03-14T15:09:26+01:00","reason":null,"what":"expired"}}`, true},
	{`{"lease_ended":{"what":"revoked","at":null}}`, true},
	{`{"lease_ended":{ "what" : "expired" } }`, true},
	{`{"lease_ended":{"what":1}}`, false},
	{`{"lease_ended":{"What":"expired"}}`, false},
	{`{"lease_ended":{"what":"a","what":"b"}}`, false},
	{`{"lease_ended":{"handle":"x"}}`, false},
	{`{"lease_ended":{"at":"yesterday"}}`, false},
	{`{"lease_ended":[]}`, false},
	{`{"lease_ended":"expired"}`, false},
	{`{"lease_ended":{"what":"x",}}`, false},
	{`{"lease_ended":{},"lease_ended":null}`, false},
}

func TestWireDecodeMatchesUnmarshal(t *testing.T) {
	for _, tc := range requestInputs {
		t.Run("request "+tc.data, func(t *testing.T) {
			assert.Equal(t, tc.fast, checkDecode(t, requestCodec, []byte(tc.data)), "fast path taken")
		})
	}
	for _, tc := range resultInputs {
		t.Run("result "+tc.data, func(t *testing.T) {
			assert.Equal(t, tc.fast, checkDecode(t, resultCodec, []byte(tc.data)), "fast path taken")
		})
	}
}

// json.Unmarshal merges into a value that is not zero, and so does the decoder.
func TestWireDecodeMerges(t *testing.T) {
	data := []byte(`{"id":"new","holder":{"client":"c2"},"args":[1],"share":{"weight":3},"progress":null,"lease":null}`)
	want, got := realisticRequest(), realisticRequest()
	require.NoError(t, json.Unmarshal(data, &want))
	require.True(t, decodeTaskRequest(data, &got))
	assert.Equal(t, want, got)
	assert.Equal(t, "alice", got.Holder.Principal)
	assert.Equal(t, "l_9f8e7d6c5b4a", got.Lease, "null leaves a string as it was")

	// What the fast path leaves to json.Unmarshal, it leaves untouched.
	got = realisticRequest()
	require.False(t, decodeTaskRequest([]byte(`{"id":"x","tool":"y","V":1}`), &got))
	assert.Equal(t, realisticRequest(), got)

	res := []byte(`{"text":"new","image":"AQI=","started":null,"holder":null,"lease_epoch":null}`)
	wantRes, gotRes := realisticResult(), realisticResult()
	wantRes.Image, gotRes.Image = []byte{9, 9, 9}, []byte{9, 9, 9}
	require.NoError(t, json.Unmarshal(res, &wantRes))
	require.True(t, decodeTaskResult(res, &gotRes))
	assert.Equal(t, wantRes, gotRes)

	// A lease_ended object merges into the one the result has; what the fast path leaves to
	// json.Unmarshal finds it untouched.
	stale := []byte(`{"lease_ended":{"what":"revoked","now":null}}`)
	wantRes, gotRes = *staleResult(), *staleResult()
	require.NoError(t, json.Unmarshal(stale, &wantRes))
	require.True(t, decodeTaskResult(stale, &gotRes))
	assert.Equal(t, wantRes, gotRes)
	assert.Equal(t, LeaseEnded{What: LeaseRevoked, Reason: "idle for 5m0s", At: gotRes.LeaseEnded.At, Now: "n1-p1 is free now"}, *gotRes.LeaseEnded)
	gotRes = *staleResult()
	kept := gotRes.LeaseEnded
	require.False(t, decodeTaskResult([]byte(`{"lease_ended":{"what":"revoked","What":"x"}}`), &gotRes))
	assert.Equal(t, *staleResult().LeaseEnded, *kept)
	assert.Same(t, kept, gotRes.LeaseEnded)
}

// asJSON is data if it is JSON, else data as a JSON string: fuzzed messages with it marshal,
// and so reach the decoder.
func asJSON(data []byte) json.RawMessage {
	if json.Valid(data) {
		return data
	}
	quoted, _ := json.Marshal(string(data))
	return quoted
}

// FuzzTaskRequestCodec checks that DecodeTaskRequest and its fast path agree with
// json.Unmarshal on any bytes, and checkMessage on a request built from the fuzzer's values,
// so that the fast path sees mostly valid messages too, not only what it refuses.
func FuzzTaskRequestCodec(f *testing.F) {
	for _, r := range []TaskRequest{realisticRequest(), {}, {V: 1, ID: "t", Args: json.RawMessage(`[{"a":"<\u2028>"}]`)}} {
		data, err := json.Marshal(&r)
		require.NoError(f, err)
		f.Add(data, "t_0123456789abcdef", int64(30000), 2.5)
	}
	for _, c := range requestInputs {
		f.Add([]byte(c.data), "a\u2028<\x00\xff", int64(-1), 1e-7)
	}
	f.Fuzz(func(t *testing.T, data []byte, text string, n int64, weight float64) {
		checkDecode(t, requestCodec, data)
		checkEncode(t, requestCodec, &TaskRequest{Args: data})
		checkMessage(t, requestCodec, &TaskRequest{V: int(n), ID: text, Serial: string(data), Tool: text, Args: asJSON(data),
			Lease: text, Holder: Holder{Principal: text, Client: string(data), Session: text}, TimeoutMS: n, WaitMS: n >> 20,
			Progress: n&1 == 1, Share: Share{Weight: weight, MaxQueued: int(n >> 40)}, Probe: text})
	})
}

// FuzzTaskResultCodec is FuzzTaskRequestCodec for results; its times run past years 0–9999 and
// its zone offsets past a day, where json.Marshal fails.
func FuzzTaskResultCodec(f *testing.F) {
	refused := realisticResult()
	refused.Outcome, refused.Code, refused.Lease = OutcomeRefused, CodeBusy, &Lease{V: 1, Serial: "s", Holder: Holder{Principal: "bob"}}
	image := realisticResult()
	image.Image, image.ImageType, image.Data = []byte{0xff, 0xd8, 0xff, 0xe0}, "image/jpeg", nil
	for _, r := range []TaskResult{realisticResult(), refused, image, *staleResult(), {}} {
		data, err := json.Marshal(&r)
		require.NoError(f, err)
		f.Add(data, "screen size: 1080x2400 pixels", time.Now().UnixNano(), 19800.0)
	}
	for _, c := range resultInputs {
		f.Add([]byte(c.data), "line\n\"<b>\"", int64(1)<<37, -1.0)
	}
	f.Fuzz(func(t *testing.T, data []byte, text string, n int64, offset float64) {
		checkDecode(t, resultCodec, data)
		checkEncode(t, resultCodec, &TaskResult{Data: data})
		zone := time.FixedZone("", int(int32(offset))%100000)
		var ended *LeaseEnded
		if n&1 == 0 { // half the messages are stale_lease refusals
			ended = &LeaseEnded{What: text, Reason: string(data), At: time.Unix(n%(1<<40), n).In(zone), Now: text}
		}
		checkMessage(t, resultCodec, &TaskResult{V: int(n), ID: text, Serial: string(data), Node: text, Tool: text,
			Holder: Holder{Principal: text, Session: string(data)}, Outcome: text, Code: text, Error: string(data), Data: asJSON(data), Text: text,
			Image: data, ImageType: text, LeaseEnded: ended, QueuePos: int(n >> 8), Submitted: time.Unix(0, n).In(zone),
			Started: time.Unix(n%(1<<38), 0), Finished: time.Unix(0, n).UTC(), AbortedBy: text, LeaseEpoch: uint64(n)})
	})
}

// BenchmarkWireCodec compares the codec with encoding/json, side by side.
func BenchmarkWireCodec(b *testing.B) {
	req, res := realisticRequest(), realisticResult()
	reqData, _ := json.Marshal(&req)
	resData, _ := json.Marshal(&res)
	b.Run("encode/request/json", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(&req)
		}
	})
	b.Run("encode/request/fast", func(b *testing.B) {
		for b.Loop() {
			_, _ = req.AppendJSON(nil)
		}
	})
	b.Run("encode/result/json", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(&res)
		}
	})
	b.Run("encode/result/fast", func(b *testing.B) {
		for b.Loop() {
			_, _ = res.AppendJSON(nil)
		}
	})
	b.Run("decode/request/json", func(b *testing.B) {
		for b.Loop() {
			var r TaskRequest
			_ = json.Unmarshal(reqData, &r)
		}
	})
	b.Run("decode/request/fast", func(b *testing.B) {
		for b.Loop() {
			var r TaskRequest
			_ = DecodeTaskRequest(reqData, &r)
		}
	})
	b.Run("decode/result/json", func(b *testing.B) {
		for b.Loop() {
			var r TaskResult
			_ = json.Unmarshal(resData, &r)
		}
	})
	b.Run("decode/result/fast", func(b *testing.B) {
		for b.Loop() {
			var r TaskResult
			_ = DecodeTaskResult(resData, &r)
		}
	})
}
