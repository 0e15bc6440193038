package atomic

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Concurrent unlocked writers of one file (two spar gate --out at once):
// every read sees one writer's whole content, and no temporary file stays.
func TestWriteFileUnlocked_Concurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gate.json")
	var wg sync.WaitGroup
	contents := make([][]byte, 8)
	for i := range contents {
		contents[i] = bytes.Repeat([]byte{byte('a' + i)}, 1<<20)
	}
	for round := 0; round < 5; round++ {
		for i := range contents {
			wg.Add(1)
			go func(b []byte) {
				defer wg.Done()
				if err := WriteFileUnlocked(path, b, 0o644); err != nil {
					t.Error(err)
				}
			}(contents[i])
		}
		wg.Wait()
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1<<20 || !bytes.Equal(got, bytes.Repeat(got[:1], 1<<20)) {
			t.Fatalf("a mixed or partial file was published (%d bytes)", len(got))
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

// A symbolic link planted as NAME.tmp is removed, never written through.
func TestWriteFile_StaleTmpLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "gate.json")
	if err := os.Symlink(victim, path+".tmp"); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("victim overwritten: %q", b)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("path = %q", b)
	}
}
