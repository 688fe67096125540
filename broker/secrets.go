package broker

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Secrets are the NATS passwords of a farm's users, kept in one file (users.json, mode 0600)
// in a directory of mode 0700: created once, then reused, so that restarting `corral up` or
// running `corral nats-auth` again keeps every credential handed out.
type Secrets struct {
	dir string

	mu        sync.Mutex
	passwords map[string]string
}

// secretsFile is the file of passwords in a secrets directory.
const secretsFile = "users.json"

// OpenSecrets opens (creating it if missing) the secrets directory dir.
func OpenSecrets(dir string) (*Secrets, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("NATS secrets directory: %w", err)
	}
	// A directory made by someone else (or before) may be wider: narrow it.
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("NATS secrets directory %s: %w", dir, err)
	}
	s := &Secrets{dir: dir, passwords: map[string]string{}}
	b, err := os.ReadFile(filepath.Join(dir, secretsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("NATS secrets: %w", err)
	}
	// A file made wider (copied, restored from a backup) is narrowed as the directory is: it
	// is rewritten (0600) only when a user is added or dropped.
	if err := os.Chmod(filepath.Join(dir, secretsFile), 0o600); err != nil {
		return nil, fmt.Errorf("NATS secrets %s: %w", filepath.Join(dir, secretsFile), err)
	}
	damaged := func(why error) error {
		return fmt.Errorf("NATS secrets %s is damaged (%w): remove the directory to make new credentials, then hand them out again", filepath.Join(dir, secretsFile), why)
	}
	if err := json.Unmarshal(b, &s.passwords); err != nil {
		return nil, damaged(err)
	}
	if s.passwords == nil { // the file said null
		return nil, damaged(errors.New("no users in it"))
	}
	for user, pw := range s.passwords {
		if pw == "" { // NATS would refuse every login of the user: never hand out such a context
			return nil, damaged(fmt.Errorf("user %q has an empty password", user))
		}
	}
	return s, nil
}

// Dir is the secrets directory.
func (s *Secrets) Dir() string { return s.dir }

// Password returns the password of a user, making and saving a random one the first time.
func (s *Secrets) Password(user string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pw, ok := s.passwords[user]; ok {
		return pw, nil
	}
	pw := randomPassword()
	s.passwords[user] = pw
	b, _ := json.MarshalIndent(s.passwords, "", "  ")
	if err := writeSecretFile(filepath.Join(s.dir, secretsFile), append(b, '\n')); err != nil {
		delete(s.passwords, user)
		return "", err
	}
	return pw, nil
}

// randomPassword returns 192 random bits as 32 URL-safe characters (a password may go into a
// nats:// URL or a shell variable).
func randomPassword() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	for i := range b {
		b[i] = alphabet[b[i]&63]
	}
	return string(b)
}

// WriteContexts writes a natscli context file for each user into the secrets directory,
// <user>.json, pointing at url (and trusting ca, when given), and returns their paths by user.
func (s *Secrets) WriteContexts(url, ca string, users []User) (map[string]string, error) {
	paths := map[string]string{}
	for _, u := range users {
		p := filepath.Join(s.dir, u.Name+".json")
		c := NATSContext{Description: fmt.Sprintf("Corral %s (NATS user %s)", u.Role, u.Name), URL: url, User: u.Name,
			Password: u.Password, InboxPrefix: InboxPrefix(u.Name), CA: ca}
		if err := WriteNATSContext(p, c); err != nil {
			return nil, err
		}
		paths[u.Name] = p
	}
	return paths, nil
}
