package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/corral-farm/corral/broker"
)

// forgetOtherNodes drops from an embedded server's users.json the passwords of the node users
// other than node's (an earlier --node-id of this data directory), and removes their natscli
// contexts (node-ID.json), as corral nats-auth forgets the users it no longer issues
// (natsauth_forget.go). The server takes only this node's user, but kept, an old id's password
// was handed out again when that id came back, to anyone who had copied its context. Users of
// other roles, a hub's site users among them, keep theirs.
func forgetOtherNodes(secrets *broker.Secrets, node string, log *slog.Logger) error {
	current := broker.UserName(broker.RoleNode, node)
	gone, err := secrets.Forget(func(user string) bool {
		return user != current && (user == string(broker.RoleNode) || strings.HasPrefix(user, string(broker.RoleNode)+"-"))
	})
	if err != nil {
		return fmt.Errorf("forget the NATS passwords of earlier node ids: %w (check that %s is writable)", err, secrets.Dir())
	}
	var errs []error
	for _, user := range gone {
		if err := os.Remove(filepath.Join(secrets.Dir(), user+".json")); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("%w (remove it by hand: no user of this server is its)", err))
		}
		log.Info("forgot the NATS password of an earlier node id of this data directory", "user", user, "node", node)
	}
	return errors.Join(errs...)
}
