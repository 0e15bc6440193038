package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The sha256 cache is keyed by file identity: the same file hashes once, a
// changed one (size or modification time) is hashed again.
func TestCachedSHA256(t *testing.T) {
	p := filepath.Join(t.TempDir(), "exe")
	if err := os.WriteFile(p, []byte("one"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := cachedSHA256(p)
	if a != fileSHA256(p) || a == "" {
		t.Fatalf("%q", a)
	}
	id, _ := identity(p)
	if s, ok := sums.Load(id); !ok || s.(string) != a {
		t.Fatalf("not cached: %v", s)
	}
	if err := os.WriteFile(p, []byte("two!"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	if b := cachedSHA256(p); b == a || b != fileSHA256(p) {
		t.Fatalf("changed file: %q", b)
	}
	if s := cachedSHA256(filepath.Join(t.TempDir(), "missing")); s != "" {
		t.Fatalf("missing file: %q", s)
	}
}
