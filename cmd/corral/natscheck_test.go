package main

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// --check-config refuses every setting file broker.Connect refuses, in the same words: the
// check names where the setting came from, the start names the setting. A setting file Connect
// reads that the check skipped would pass the check here and fail the start.
func TestCheckConfigRefusesWhatConnectRefuses(t *testing.T) {
	noNATSSettings(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	garbage := filepath.Join(dir, "garbage")
	require.NoError(t, os.WriteFile(garbage, []byte("not a key\n"), 0o600))
	caCtx := filepath.Join(dir, "ca.json")
	require.NoError(t, broker.WriteNATSContext(caCtx, broker.NATSContext{URL: "nats://127.0.0.1:1", CA: missing}))

	for _, c := range []struct {
		name    string
		args    []string
		setting broker.Setting
		source  string
	}{
		{"password file", []string{"--nats-user", "u", "--nats-password-file", missing}, broker.SettingPasswordFile, "--nats-password-file"},
		{"creds missing", []string{"--nats-creds", missing}, broker.SettingCreds, "--nats-creds"},
		{"creds garbage", []string{"--nats-creds", garbage}, broker.SettingCreds, "--nats-creds"},
		{"nkey missing", []string{"--nats-nkey", missing}, broker.SettingNKey, "--nats-nkey"},
		{"nkey garbage", []string{"--nats-nkey", garbage}, broker.SettingNKey, "--nats-nkey"},
		{"client cert", []string{"--nats-tls-cert", garbage, "--nats-tls-key", garbage}, broker.SettingTLSCert, "--nats-tls-cert and --nats-tls-key"},
		{"client key alone", []string{"--nats-tls-key", missing}, broker.SettingTLSCert, "the TLS client certificate and --nats-tls-key"},
		{"CA", []string{"--nats-tls-ca", missing}, broker.SettingTLSCA, "--nats-tls-ca"},
		{"context's CA", []string{"--nats-context", caCtx}, broker.SettingTLSCA, "the ca of NATS context " + caCtx},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFlags("t")
			n := f.natsFlags()
			require.NoError(t, f.Parse(append([]string{"--nats-url", "nats://127.0.0.1:1"}, c.args...)))
			o := n.options("t")

			_, startErr := broker.Connect(o, slog.New(slog.DiscardHandler))
			var started *broker.SettingError
			require.ErrorAs(t, startErr, &started, "a start refuses it before dialling")
			assert.Equal(t, c.setting, started.Setting)
			assert.Equal(t, started.Error(), startErr.Error(), "the start's error is the setting's")
			assert.Contains(t, startErr.Error(), string(c.setting)+": ")

			checkErr := checkNATS(n, o)
			var checked *broker.SettingError
			require.ErrorAs(t, checkErr, &checked, "the check refuses what the start refuses")
			assert.Equal(t, c.setting, checked.Setting)
			assert.Equal(t, started.Reason(), checked.Reason(), "in the same words")
			assert.Equal(t, c.source+": "+started.Reason(), checkErr.Error(), "named by where it came from")
		})
	}
}

// Every setting that fails is told at once, not only the first.
func TestCheckNATSTellsEverySetting(t *testing.T) {
	t.Setenv("NATS_CONTEXT", "")
	t.Setenv("NATS_URL", "")
	missing := filepath.Join(t.TempDir(), "missing")
	f := newFlags("t")
	n := f.natsFlags()
	require.NoError(t, f.Parse([]string{"--nats-url", "nats://127.0.0.1:1", "--nats-creds", missing, "--nats-nkey", missing,
		"--nats-tls-key", missing, "--nats-tls-ca", missing}))
	err := checkNATS(n, n.options("t"))
	var told []broker.Setting
	for _, e := range joined(err) {
		var se *broker.SettingError
		require.True(t, errors.As(e, &se), "%v", e)
		told = append(told, se.Setting)
	}
	assert.Equal(t, []broker.Setting{broker.SettingCreds, broker.SettingNKey, broker.SettingTLSCert, broker.SettingTLSCA}, told)
}
