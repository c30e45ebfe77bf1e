package account

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"
)

// Argon2Params are the cost of an argon2id password hash. A stored hash carries its own, so
// that they can be raised without losing the passwords kept under lower ones.
type Argon2Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8  // lanes
	SaltLen int
	KeyLen  uint32
}

// PasswordHashing is what new passwords are hashed with: OWASP's first recommended argon2id
// configuration (19 MiB, 2 passes, 1 lane), a 16-byte salt and a 32-byte key.
var PasswordHashing = Argon2Params{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Bounds a stored hash's parameters must keep: a damaged or hostile row cannot make one
// verification take gigabytes or minutes.
const (
	maxArgon2Memory  = 1 << 20 // 1 GiB
	maxArgon2Time    = 64
	maxArgon2Key     = 128
	minArgon2Key     = 16
	minArgon2SaltLen = 8
)

// errMalformedHash is a stored password hash that is not an argon2id PHC string Sobre can verify.
var errMalformedHash = errors.New("account: malformed password hash")

// hashSlots bounds the argon2 hashes computed at once: each holds its memory (19 MiB) until done.
var hashSlots = make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))

func acquireHashSlot(ctx context.Context) (func(), error) {
	select {
	case hashSlots <- struct{}{}:
		return func() { <-hashSlots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("wait to hash a password: %w", ctx.Err())
	}
}

var b64 = base64.RawStdEncoding

// HashPassword hashes password (normalised as CheckPassword counts it) with PasswordHashing and a
// fresh random salt, in the PHC string format:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key> (unpadded standard base64).
func HashPassword(ctx context.Context, password string) (string, error) {
	return hashPassword(ctx, password, PasswordHashing)
}

func hashPassword(ctx context.Context, password string, p Argon2Params) (string, error) {
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("draw a password salt: %w", err)
	}
	release, err := acquireHashSlot(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	key := argon2.IDKey([]byte(normalisePassword(password)), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// phc is a parsed argon2id PHC string.
type phc struct {
	params Argon2Params
	salt   []byte
	key    []byte
}

// parsePHC reads a stored argon2id hash, refusing one whose parameters are out of bounds.
func parsePHC(s string) (phc, error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return phc{}, errMalformedHash
	}
	var h phc
	for kv := range strings.SplitSeq(parts[3], ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return phc{}, errMalformedHash
		}
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return phc{}, errMalformedHash
		}
		switch k {
		case "m":
			h.params.Memory = uint32(n)
		case "t":
			h.params.Time = uint32(n)
		case "p":
			if n > 255 {
				return phc{}, errMalformedHash
			}
			h.params.Threads = uint8(n)
		default:
			return phc{}, errMalformedHash
		}
	}
	var err error
	if h.salt, err = b64.DecodeString(parts[4]); err != nil {
		return phc{}, errMalformedHash
	}
	if h.key, err = b64.DecodeString(parts[5]); err != nil {
		return phc{}, errMalformedHash
	}
	p := h.params
	if p.Time == 0 || p.Time > maxArgon2Time || p.Threads == 0 || p.Memory < 8*uint32(p.Threads) || p.Memory > maxArgon2Memory ||
		len(h.salt) < minArgon2SaltLen || len(h.key) < minArgon2Key || len(h.key) > maxArgon2Key {
		return phc{}, errMalformedHash
	}
	h.params.SaltLen, h.params.KeyLen = len(h.salt), uint32(len(h.key))
	return h, nil
}

// VerifyPassword reports whether password is the one hashed in stored (a PHC string of
// HashPassword, whatever its parameters), comparing in constant time. A stored hash Sobre cannot
// read is an error, never a match.
func VerifyPassword(ctx context.Context, stored, password string) (bool, error) {
	h, err := parsePHC(stored)
	if err != nil {
		return false, err
	}
	release, err := acquireHashSlot(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	key := argon2.IDKey([]byte(normalisePassword(password)), h.salt, h.params.Time, h.params.Memory, h.params.Threads, h.params.KeyLen)
	return subtle.ConstantTimeCompare(key, h.key) == 1, nil
}

// needsRehash reports whether stored was hashed with less than PasswordHashing asks today.
func needsRehash(stored string) bool {
	h, err := parsePHC(stored)
	if err != nil {
		return true
	}
	p := h.params
	return p.Memory < PasswordHashing.Memory || p.Time < PasswordHashing.Time || p.KeyLen < PasswordHashing.KeyLen ||
		uint32(p.SaltLen) < uint32(PasswordHashing.SaltLen)
}

// dummyHash is a hash of no one's password, verified when a sign-in names an address without an
// account, so that the answer takes as long as for one with an account.
var dummyHash = sync.OnceValues(func() (string, error) {
	return HashPassword(context.Background(), "no account has this password")
})

// spendVerification costs what one password verification costs, and finds nothing.
func spendVerification(ctx context.Context, password string) {
	if h, err := dummyHash(); err == nil {
		_, _ = VerifyPassword(ctx, h, password)
	}
}
