package broker

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// The gateways' secret. Gateways hand out stateless session ids and console cookies (mcp's
// session_keys.go), keyed per principal. Keys from the policy alone (a name and its token's
// SHA-256, which the policy file holds) let anyone who reads that file mint them. So every key
// also takes this farm's gateway secret: 32 random bytes in a bucket of their own, made by the
// first gateway to start (Create: the first wins, the others read its value), kept as long as the
// farm, and readable by the gateway and admin roles only (auth.go): not by operators, nodes,
// vision workers or sites. Every gateway of the farm reads the same value, so ids and cookies
// survive a restart and work across gateways, as they did.

// GatewaySecretBucket holds the farm's gateway secret, under one key.
const GatewaySecretBucket = "corral_gateway_secret"

const (
	gatewaySecretKey = "farm"
	gatewaySecretLen = 32
)

// gatewaySecretSubjects are the subjects a gateway and an admin publish to make the bucket and
// read and write its one key; no other role has them.
func gatewaySecretSubjects() []string {
	s := kvStream(GatewaySecretBucket)
	return []string{"$KV." + GatewaySecretBucket + ".>", jsAPI + "STREAM.CREATE." + s, jsAPI + "STREAM.INFO." + s,
		jsAPI + "STREAM.MSG.GET." + s, jsAPI + "DIRECT.GET." + s, jsAPI + "DIRECT.GET." + s + ".>"}
}

// GatewaySecret returns the farm's gateway secret, making it if no gateway has yet. replicas is
// the bucket's when it is made (0: 1, or those of a bucket that exists).
func GatewaySecret(ctx context.Context, js jetstream.JetStream, replicas int) ([]byte, error) {
	kv, err := gatewaySecretBucket(ctx, js, replicas)
	if err != nil {
		return nil, gatewaySecretErr(err)
	}
	secret := make([]byte, gatewaySecretLen)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("gateway secret: %w", err)
	}
	if _, err = kv.Create(ctx, gatewaySecretKey, secret); err == nil {
		return secret, nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return nil, gatewaySecretErr(err)
	}
	e, err := kv.Get(ctx, gatewaySecretKey) // another gateway made it first
	if err != nil {
		return nil, gatewaySecretErr(err)
	}
	if len(e.Value()) != gatewaySecretLen {
		return nil, fmt.Errorf("gateway secret: %s's %q holds %d bytes, not %d: delete the bucket (nats kv del %s) "+
			"and restart the gateways; their session ids and console logins end once", GatewaySecretBucket, gatewaySecretKey,
			len(e.Value()), gatewaySecretLen, GatewaySecretBucket)
	}
	return e.Value(), nil
}

// gatewaySecretBucket opens the bucket, making it when it is missing; one that exists is left
// as it is (its value must outlive any change of settings).
func gatewaySecretBucket(ctx context.Context, js jetstream.JetStream, want int) (jetstream.KeyValue, error) {
	r, err := replicas(ctx, js, kvStream(GatewaySecretBucket), want)
	if err != nil {
		return nil, err
	}
	cfg := kvStreamConfig(jetstream.KeyValueConfig{Bucket: GatewaySecretBucket, History: 1, Replicas: r, Storage: jetstream.FileStorage,
		Description: "Corral gateways' secret: keys their session ids and console cookies (gateways and admins only)"}, false)
	if _, err := js.CreateStream(ctx, cfg); err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return nil, err
	}
	return js.KeyValue(ctx, GatewaySecretBucket)
}

func gatewaySecretErr(err error) error {
	return fmt.Errorf("gateway secret (bucket %s): %w; the gateway's NATS user needs the gateway role's permissions of this "+
		"Corral version (docs/operations.md, NATS roles): run corral nats-auth again, or upgrade the Helm chart", GatewaySecretBucket, err)
}

// GatewaySecret returns the farm's gateway secret (GatewaySecret), through c's connection.
func (c *Client) GatewaySecret(ctx context.Context) ([]byte, error) {
	return GatewaySecret(ctx, c.stores.JS, 0)
}
