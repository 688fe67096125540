package broker

import (
	"encoding/json"
	"path/filepath"
	"slices"
)

// Forget removes from users.json the passwords of the users drop picks, and returns their
// names, sorted. A user no longer issued (a node decommissioned) must not get its old password
// back if its name is issued again: the host it ran on may still hold it.
func (s *Secrets) Forget(drop func(user string) bool) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var gone []string
	kept := make(map[string]string, len(s.passwords))
	for user, pw := range s.passwords {
		if drop(user) {
			gone = append(gone, user)
			continue
		}
		kept[user] = pw
	}
	if len(gone) == 0 {
		return nil, nil
	}
	b, _ := json.MarshalIndent(kept, "", "  ")
	if err := writeSecretFile(filepath.Join(s.dir, secretsFile), append(b, '\n')); err != nil {
		return nil, err
	}
	s.passwords = kept
	slices.Sort(gone)
	return gone, nil
}
