package android

import "testing"

func TestServerAddr(t *testing.T) {
	for _, c := range []struct{ host, port, want string }{
		{"", "", "127.0.0.1:5037"},
		{"", "5038", "127.0.0.1:5038"},
		{"", "nope", "127.0.0.1:5037"},
		{"", "70000", "127.0.0.1:5037"},
		{"10.0.0.2", "", "10.0.0.2:5037"},
		{"::1", "6000", "[::1]:6000"},
	} {
		t.Setenv("ANDROID_ADB_SERVER_ADDRESS", c.host)
		t.Setenv("ANDROID_ADB_SERVER_PORT", c.port)
		if got := ServerAddr(); got != c.want {
			t.Errorf("ServerAddr() with address %q, port %q = %s, want %s", c.host, c.port, got, c.want)
		}
	}
}
