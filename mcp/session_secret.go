package mcp

import (
	"context"
	"crypto/rand"
	"time"
)

// farmSecrets is a farm that holds its gateways' shared secret (broker.Client).
type farmSecrets interface {
	GatewaySecret(ctx context.Context) ([]byte, error)
}

// sessionSecretWait bounds the read of the farm's secret at New (cmd/corral reads it before,
// and fails its start when it cannot).
const sessionSecretWait = 10 * time.Second

// sessionSecret is the secret in the keys of the policy's principals (Options.SessionSecret):
// the one given, else the farm's, else one of this gateway's own. Nil without a policy.
func (g *Gateway) sessionSecret() []byte {
	if g.opts.Policy == nil {
		return nil
	}
	if len(g.opts.SessionSecret) > 0 {
		return g.opts.SessionSecret
	}
	if f, ok := farmAs[farmSecrets](g.farm); ok {
		ctx, cancel := context.WithTimeout(context.Background(), sessionSecretWait)
		defer cancel()
		secret, err := f.GatewaySecret(ctx)
		if err == nil {
			return secret
		}
		g.log.Error("the farm's gateway secret is not read: this gateway's session ids and console logins work with it alone, "+
			"until it stops", "err", err)
	}
	own := make([]byte, 32)
	_, _ = rand.Read(own)
	return own
}
