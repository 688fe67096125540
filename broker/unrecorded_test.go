package broker

import "testing"

// A record keeps, of an error only its caller may read in part, the words given in that
// part's place, wherever it stands (the scheduler puts a timeout's cause before it); and none
// of the error when the part is not found as given, since it may then be there in other words.
func TestRecordLeavesOutTheUnrecordedPartOfAnError(t *testing.T) {
	said := "the login endpoint answered HTTP 401: {\"session\":\"tok-1\"}"
	u := &Unrecorded{Text: said, Instead: "the login endpoint answered HTTP 401, 19 bytes"}
	for _, tc := range []struct{ err, want string }{
		{"device w1: " + said, "device w1: the login endpoint answered HTTP 401, 19 bytes"},
		{"deadline of 30s passed; device w1: " + said, "deadline of 30s passed; device w1: the login endpoint answered HTTP 401, 19 bytes"},
		{"device w1: the login endpoint answered HTTP 401: {\\\"session\\\":\\\"tok-1\\\"}", "the login endpoint answered HTTP 401, 19 bytes"},
	} {
		rec := TaskResult{Serial: "w1", Error: tc.err, ErrorUnrecorded: u}.Record()
		if rec.Error != tc.want || rec.ErrorUnrecorded != nil {
			t.Errorf("record of %q: error %q (unrecorded %v), want %q", tc.err, rec.Error, rec.ErrorUnrecorded, tc.want)
		}
	}
}
